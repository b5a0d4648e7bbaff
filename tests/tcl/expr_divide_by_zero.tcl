catch {expr {1 / 0}} m; puts $m
catch {expr {1 % 0}} m; puts $m
