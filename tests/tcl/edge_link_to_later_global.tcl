proc b {} { upvar 1 x y; uplevel 1 {global x}; set y 5 }
proc a {} { b; return $x }
puts [a]
puts $x
