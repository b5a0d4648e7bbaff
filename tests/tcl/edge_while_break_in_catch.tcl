set i 0
while 1 {
  incr i
  if {[catch {if {$i > 3} break} r] == 3} { puts "caught break at $i"; break }
}
puts $i
