set l {a b c d e}
puts [lindex $l 0]
puts [lindex $l end]
puts [lindex $l end-1]
puts [lindex $l 1+1]
puts [lindex $l end-1-1]
puts [lindex $l 10]
puts [lindex $l -1]
puts [lindex $l]
puts <[lindex {} 0]>
