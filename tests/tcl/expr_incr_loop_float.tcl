set sum 0
for {set i 0} {$i < 10} {incr i} { set sum [expr {$sum + 0.1}] }
puts $sum
