proc find {l v} { foreach x $l { if {$x == $v} { return "found $x" } }; return none }
puts [find {1 2 3} 2]
puts [find {1 2 3} 5]
