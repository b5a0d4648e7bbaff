set i 5
incr i
puts $i
incr i 10
puts $i
incr i -20
puts $i
incr j
puts $j
catch {incr k x} m; puts $m
set s abc
catch {incr s} m; puts $m
catch {incr i 1.5} m; puts $m
