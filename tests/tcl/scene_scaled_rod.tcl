set out {}
foreach p {{0 0 0} {1 0 0} {1 1 1}} {
  lassign $p x y z
  lappend out [list [expr {($x - 0.5) * 10}] [expr {$y * 1}] [expr {$z * 1.0}]]
}
puts $out
