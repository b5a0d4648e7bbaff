puts [expr {[expr {1 + 1}] * [expr 3]}]
set x [expr {[string length abc] > 2 ? "long" : "short"}]
puts $x
