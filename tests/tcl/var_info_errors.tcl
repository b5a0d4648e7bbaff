catch {info} m; puts $m
catch {info level 5} m; puts $m
