proc fib {n} { if {$n < 2} {return $n}; expr {[fib [expr {$n-1}]] + [fib [expr {$n-2}]]} }
puts [fib 15]
proc fact {n} { if {$n <= 1} {return 1}; expr {$n * [fact [expr {$n - 1}]]} }
puts [fact 20]
