proc f {a {b 2} args} {}
catch {f} m; puts $m
proc g {a b} {}
catch {g 1} m; puts $m
catch {g 1 2 3} m; puts $m
proc h {} {}
catch {h 1} m; puts $m
