puts [string map {a 1 b 2} abcab]
puts [string map {abc X a Y} abcab]
puts [string map -nocase {A x} aAbA]
puts [string map {} abc]
puts [string map {"" x a b} aaa]
catch {string map {a} abc} m; puts $m
