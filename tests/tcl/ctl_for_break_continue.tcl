for {set i 0} {$i < 10} {incr i} {
  if {$i == 2} continue
  if {$i == 5} break
  puts $i
}
puts "end $i"
