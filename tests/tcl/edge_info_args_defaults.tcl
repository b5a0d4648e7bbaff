proc p {a {b {x y}} args} {}
puts [info args p]
puts [info default p b v]
puts $v
