eval puts hello
eval [list puts "a b"]
eval {puts [expr 1+1]}
eval set x 5 ; puts $x
