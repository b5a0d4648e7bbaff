set x global
proc f {} { set x local; return $x }
puts [f]
puts $x
proc g {} { catch {set x} m; return $m }
puts [g]
