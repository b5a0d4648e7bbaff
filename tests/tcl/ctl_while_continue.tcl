set i 0
set odd {}
while {$i < 10} { incr i; if {$i % 2 == 0} continue; lappend odd $i }
puts $odd
