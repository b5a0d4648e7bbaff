catch {uplevel 3 {set x 1}} m; puts $m
proc f {} { uplevel 1 {error "from uplevel"} }
catch f m; puts $m
