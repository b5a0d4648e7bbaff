set m {{1 2 3} {4 5 6} {7 8 9}}
puts [lindex $m 1 2]
puts [lindex $m {2 0}]
puts [lindex $m end end]
puts [lindex $m 1]
puts [lindex $m {}]
puts [lindex {{a {b c}}} 0 1 1]
