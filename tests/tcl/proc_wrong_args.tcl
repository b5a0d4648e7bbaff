proc f {a {b 2} args} {}
catch {f} m; puts $m
proc g {a b} {}
catch {g 1} m; puts $m
catch {g 1 2 3} m; puts $m
proc h {} {}
catch {h 1} m; puts $m
proc k {a {b 1} c} {}
catch {k 1 2} m; puts $m
proc v {{args x}} { return [llength $args] }
puts [v]
puts [v 1 2]
