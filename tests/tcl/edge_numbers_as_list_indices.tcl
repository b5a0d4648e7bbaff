set l {a b c d}
puts [lindex $l 0x1]
puts [lindex $l 01]
puts [lrange $l 1 end-1]
puts [lindex $l end--1]
