catch {format %d abc} m; puts $m
catch {format %d} m; puts $m
catch {format %q 1} m; puts $m
catch {format %d 3.7} m; puts $m
catch {format %f abc} m; puts $m
catch {format} m; puts $m
catch {format %} m; puts $m
