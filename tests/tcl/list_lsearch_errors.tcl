catch {lsearch -bogus {a} a} m; puts [string range $m 0 20]
catch {lsearch {a}} m; puts $m
