foreach x {1 2 3 4} { if {$x == 3} break; puts $x }
foreach x {1 2 3 4} { if {$x == 2} continue; puts $x }
puts "x=$x"
