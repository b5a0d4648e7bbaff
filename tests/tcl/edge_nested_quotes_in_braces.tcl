set s {a "b c" d}
puts [llength $s]
puts [lindex $s 1]
set t "a {b c} d"
puts [lindex $t 1]
