proc f {} { return -code error "custom" }
catch {f} m; puts $m
proc g {} { return -code break }
foreach x {1 2 3} { puts $x; g }
proc h {} { return -code continue }
foreach x {1 2} { h; puts never }
puts done
