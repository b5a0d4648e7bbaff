puts [list #a b]
puts [list a #b]
puts [list {#a b}]
