puts [lsort {banana Apple cherry apple Banana}]
puts [lsort -dictionary {banana Apple cherry apple Banana}]
