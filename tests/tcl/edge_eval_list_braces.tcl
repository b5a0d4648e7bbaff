set cmd [list puts "a {b} c"]
eval $cmd
eval [list set v "x y"]
puts $v
