set s ab
append s cd ef
puts $s
append new x
puts $new
puts [append s]
set a(k) 1
append a(k) 2
puts $a(k)
