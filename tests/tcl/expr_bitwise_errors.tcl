catch {expr {1.5 & 1}} m; puts $m
catch {expr {~1.0}} m; puts $m
catch {expr {1 << -1}} m; puts $m
catch {expr {1.0 % 2}} m; puts $m
