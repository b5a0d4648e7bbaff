proc depth {n} { if {$n == 0} { return 0 }; return [expr {1 + [depth [expr {$n - 1}]]}] }
puts [depth 150]
