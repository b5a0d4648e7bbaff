set l {a b c}
lset l 1 x
puts $l
set m {{1 2} {3 4}}
lset m 1 0 z
puts $m
lset m {0 1} y
puts $m
lset l end q
puts $l
lset l 3 new
puts $l
catch {lset l 10 x} m; puts $m
set v {a b}
lset v {c d}
puts $v
