set x 0
expr {0 && [incr x]}
expr {1 || [incr x]}
expr {1 ? 1 : [incr x]}
puts $x
expr {1 && [incr x]}
puts $x
