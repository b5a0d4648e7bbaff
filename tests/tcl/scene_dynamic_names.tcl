for {set i 1} {$i <= 3} {incr i} {
  set mass($i) [expr {$i * 10}]
  proc body$i {} "return \"body $i mass \$::mass($i)\""
}
puts [body1]
puts [body3]
