set results {}
foreach v {1 0 2} {
  if {[catch {expr {10 / $v}} r]} { lappend results err } else { lappend results $r }
}
puts $results
