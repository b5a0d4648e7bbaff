foreach x {a b c} { puts $x }
foreach {a b} {1 2 3 4 5} { puts "$a|$b" }
foreach x {} { puts never }
puts [foreach x {1} {}]
