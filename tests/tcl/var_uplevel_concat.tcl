proc f {} { uplevel 1 set x 4 }
f
puts $x
