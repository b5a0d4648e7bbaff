foreach a {1 2 3} b {x y} { puts "$a $b" }
foreach {a b} {1 2 3 4} c {p q r s t} { puts "$a $b $c" }
