set x 0x10
puts $x
puts [expr {$x + 0}]
set y 1.50
puts $y
puts [expr {$y * 1}]
set z 007
puts $z
puts [expr {$z + 1}]
