proc f {a args} { return "$a <$args> [llength $args]" }
puts [f 1]
puts [f 1 2 3]
puts [f 1 {2 3}]
proc g args { return $args }
puts [g]
puts [g a b]
