set total 0
foreach n {1 2 3 4 5} { incr total [expr {$n * $n}] }
puts $total
