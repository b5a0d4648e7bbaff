puts [lsort -stride 2 {b 2 a 3 c 1}]
puts [lsort -stride 2 -index 1 -integer {b 2 a 3 c 1}]
catch {lsort -stride 2 {a b c}} m; puts $m
