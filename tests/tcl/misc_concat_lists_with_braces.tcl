set a {x {y z}}
set b "w {v}"
puts [concat $a $b]
puts [llength [concat $a $b]]
