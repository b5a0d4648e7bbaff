set h(a) 0
foreach c {a b a} { if {![info exists h($c)]} { set h($c) 0 }; incr h($c) }
puts "$h(a) $h(b)"
