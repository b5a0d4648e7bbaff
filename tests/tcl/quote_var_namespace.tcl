set ::g 7
puts $::g
proc f {} { return $::g }
puts [f]
