catch {for} m; puts $m
catch {for {} {} {}} m; puts $m
