proc sum args { set s 0; foreach a $args { incr s $a }; return $s }
set nums {1 2 3 4}
puts [sum {*}$nums]
puts [sum {*}$nums 10]
puts [sum]
