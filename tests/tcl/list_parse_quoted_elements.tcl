set l {"a b" c\ d {e f}}
puts [llength $l]
puts [lindex $l 0]
puts [lindex $l 1]
puts [lindex $l 2]
