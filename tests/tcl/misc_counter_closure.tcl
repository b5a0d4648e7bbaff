proc make_counter {name} {
  uplevel #0 [list set $name 0]
  proc $name {} "incr ::$name"
}
make_counter c1
c1; c1
puts [c1]
