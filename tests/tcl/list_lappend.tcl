set l {}
lappend l a
lappend l b c
puts $l
lappend l {d e}
puts $l
puts [llength $l]
lappend new x
puts $new
puts [lappend l]
