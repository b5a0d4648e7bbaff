set x [set y 3]
puts "$x $y"
puts [if 1 {set z 4}]
