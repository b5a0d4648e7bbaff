puts [expr {1 / 0.0}]
puts [expr {-1 / 0.0}]
puts [expr {1e300 * 1e300}]
puts [expr {1e1000}]
catch {expr {0.0 / 0}} m; puts $m
