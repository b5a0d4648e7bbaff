proc handle {kind} {
  if {$kind eq "a"} { return A } elseif {$kind eq "b"} { return B } else { return ? }
}
puts [handle a][handle b][handle c]
