set l {{b 2} {a 3} {c 1}}
puts [lsort -index 0 $l]
puts [lsort -index 1 -integer $l]
puts [lsort -index end -decreasing $l]
