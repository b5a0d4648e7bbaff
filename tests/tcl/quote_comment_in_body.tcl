proc f {} {
  # comment in body
  set x 1
  # another
  return $x
}
puts [f]
