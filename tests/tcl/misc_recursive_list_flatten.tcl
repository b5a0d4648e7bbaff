proc flatten {l} {
  set out {}
  foreach e $l {
    if {[llength $e] > 1} { lappend out {*}[flatten $e] } else { lappend out $e }
  }
  return $out
}
puts [flatten {1 {2 {3 4}} {{5}} 6}]
