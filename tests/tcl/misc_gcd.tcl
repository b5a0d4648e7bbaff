proc gcd {a b} { while {$b != 0} { set t $b; set b [expr {$a % $b}]; set a $t }; return $a }
puts [gcd 48 18]
puts [gcd 17 5]
