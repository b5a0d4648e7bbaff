set a 1
set b 2
puts $a$b
puts $a-$b
puts [set a][set b]
puts "$a""
