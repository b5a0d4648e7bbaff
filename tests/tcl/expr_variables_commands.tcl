set a 3
set b(1) 4
puts [expr {$a * $b(1)}]
puts [expr {[llength {a b c}] + $a}]
puts [expr {"$a$a" + 1}]
puts [expr {{12} + 1}]
