catch {lindex {a b} x} m; puts $m
catch {lindex {a b} end-x} m; puts $m
catch {lindex "a {b" 0} m; puts $m
catch {lindex} m; puts $m
