puts [lsort -unique {c a b a c}]
puts [lsort -unique -integer {3 1 03 2}]
