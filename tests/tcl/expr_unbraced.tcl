set a 3
set op +
puts [expr $a $op 4]
puts [expr 1+2]
puts [expr "2 * $a"]
puts [expr {1} + {2}]
