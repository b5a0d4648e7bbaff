set l {1 2}
puts [expr {[llength $l] == 2 ? "two" : "other"}]
puts [expr [list 1 + 2]]
