catch {expr {08}} m; puts $m
puts [expr {08.5}]
