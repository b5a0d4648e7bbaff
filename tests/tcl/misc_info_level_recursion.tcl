proc r {n} { if {$n == 0} { return [info level] }; r [expr {$n - 1}] }
puts [r 5]
