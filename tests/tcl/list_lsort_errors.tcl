catch {lsort -integer {1 a}} m; puts $m
catch {lsort -real {1 a}} m; puts $m
catch {lsort -index 1 {{a} {b c}}} m; puts $m
catch {lsort -bogus {}} m; puts [string range $m 0 20]
