array set a {one 1 two 2 three 3}
puts [lsort [array names a]]
set l [array get a]
puts [llength $l]
puts [lsort [array names a t*]]
array set a {}
puts [array size a]
catch {array set a {odd}} m; puts $m
