set a {1 2}
set b $a
lappend b 3
puts $a
puts $b
