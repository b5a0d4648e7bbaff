set faces {{{0 0} {1 0}} {{0 1} {1 1}}}
foreach f $faces {
  foreach p $f {
    puts "[lindex $p 0],[lindex $p 1]"
  }
}
