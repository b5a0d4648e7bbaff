puts [expr {2 ** 10}]
puts [expr {2 ** -1}]
puts [expr {1 ** -5}]
puts [expr {-1 ** -3}]
puts [expr {2 ** 0.5}]
puts [expr {2.0 ** 3}]
puts [expr {(-2) ** 3}]
puts [expr {0 ** 0}]
catch {expr {0 ** -1}} m; puts $m
