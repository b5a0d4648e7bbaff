puts [catch {return -code 5 x} m]
puts $m
proc f {} { return -code 7 seven }
puts [catch f m]
puts $m
