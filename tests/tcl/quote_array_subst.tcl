set a(x) 1
set a(y z) 2
set k x
puts $a($k)
puts "$a(y z)"
puts [set a(x)]
set i 1
set b(1,2) ok
set j 2
puts $b($i,$j)
