set l [list [list a b] [list c [list d e]]]
puts $l
puts [lindex $l 1 1 0]
set s [join $l ,]
puts $s
