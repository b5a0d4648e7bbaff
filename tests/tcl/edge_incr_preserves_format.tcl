set x 010
incr x
puts $x
set y 0x10
incr y 0
puts $y
