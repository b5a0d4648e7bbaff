set ::x 5
proc f {} { set ::x 6; return $::x }
puts [f]
puts $x
