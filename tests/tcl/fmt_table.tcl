foreach {name qty price} {apple 3 0.5 banana 12 0.25 cherry 100 2} {
  puts [format "%-8s %4d %8.2f" $name $qty [expr {$qty * $price}]]
}
