proc f {} { set a 1; set b 2 }
puts [f]
puts [eval {set x 3; set y 4}]
