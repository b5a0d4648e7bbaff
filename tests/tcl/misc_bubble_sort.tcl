proc bsort {l} {
  set n [llength $l]
  for {set i 0} {$i < $n} {incr i} {
    for {set j 0} {$j < $n - $i - 1} {incr j} {
      if {[lindex $l $j] > [lindex $l [expr {$j+1}]]} {
        set t [lindex $l $j]
        lset l $j [lindex $l [expr {$j+1}]]
        lset l [expr {$j+1}] $t
      }
    }
  }
  return $l
}
puts [bsort {5 3 8 1 9 2}]
