set i 0
while {$i < 5} { incr i }
puts $i
set l {}
while 1 { lappend l x; if {[llength $l] >= 3} break }
puts $l
puts [while 0 {}]
