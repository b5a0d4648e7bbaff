set {a b} 3
puts ${a b}
set x.y 4
puts ${x.y}
puts "[set {a b}]"
