set bodies {}
for {set i 0} {$i < 3} {incr i} {
  for {set j 0} {$j < 2} {incr j} {
    lappend bodies [format "b%d_%d" $i $j] [list [expr {$i * 1.5}] [expr {$j * 2}] 0]
  }
}
foreach {name pos} $bodies { puts "$name at $pos" }
