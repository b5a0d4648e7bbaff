proc f {a {b 10} {c 20}} { return "$a $b $c" }
puts [f 1]
puts [f 1 2]
puts [f 1 2 3]
