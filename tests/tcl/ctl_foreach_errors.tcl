catch {foreach} m; puts $m
catch {foreach x} m; puts $m
catch {foreach {} {1 2} {}} m; puts $m
catch {foreach x "a {b" {}} m; puts $m
