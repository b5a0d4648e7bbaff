set l "  a \t b \n c  "
puts [llength $l]
puts [lindex $l end]
