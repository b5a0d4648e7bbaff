set a(x) 1
set a(y) 2
puts [array size a]
puts [lsort [array names a]]
puts [array exists a]
puts [array exists nosuch]
puts [info exists a(x)]
puts [info exists a(z)]
