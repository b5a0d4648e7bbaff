proc list {args} { return "my list: $args" }
puts [list a b]
