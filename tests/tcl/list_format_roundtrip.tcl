set l [list "a b" {c {d e}} \\ "\{" "x y\}" {} "\"q\""]
foreach e $l { puts "<$e>" }
puts [llength $l]
puts [string equal [lindex $l 4] "x y\}"]
