catch {expr {1 +}} m; puts $m
catch {expr {abc}} m; puts $m
catch {expr {(1 + 2}} m; puts [string range $m 0 10]
catch {expr {}} m; puts [string range $m 0 5]
