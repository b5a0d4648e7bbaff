set s 1
catch {set s(x) 2} m; puts $m
array set a {x 1}
catch {set a 2} m; puts $m
catch {puts $a} m; puts $m
catch {puts $a(nosuch)} m; puts $m
catch {puts $s(x)} m; puts $m
catch {array bogus a} m; puts [string range $m 0 40]
