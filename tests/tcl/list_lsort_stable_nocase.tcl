puts [lsort -nocase {b A a B}]
puts [lsort -index 1 {{x 1} {y 0} {z 1} {w 0}}]
