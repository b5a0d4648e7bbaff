set rows {}
for {set i 0} {$i < 3} {incr i} {
  set row {}
  for {set j 0} {$j < 3} {incr j} { lappend row [expr {$i * $j}] }
  lappend rows $row
}
puts $rows
puts [lindex $rows 2 2]
