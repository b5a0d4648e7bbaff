set a 1
puts [set a]
puts [set b [set a]]
catch {set} m; puts $m
catch {set a b c} m; puts $m
catch {set nosuch} m; puts $m
