proc vadd {a b} { lmap2 x $a y $b {expr {$x + $y}} }
proc lmap2 {v1 l1 v2 l2 body} {
  set out {}
  foreach $v1 $l1 $v2 $l2 { lappend out [uplevel 1 [list set $v1 [set $v1]]] }
  return $out
}
proc vec_add {a b} {
  set r {}
  foreach x $a y $b { lappend r [expr {$x + $y}] }
  return $r
}
proc vec_scale {v s} {
  set r {}
  foreach x $v { lappend r [expr {$x * $s}] }
  return $r
}
puts [vec_add {1 2 3} {4 5 6}]
puts [vec_scale {1 2 3} 0.5]
puts [vec_add [vec_scale {1 0 0} 2] {0 1 0}]
