proc f {} { return 1 }
puts [f]
proc f {} { return 2 }
puts [f]
