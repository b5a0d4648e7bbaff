set a(n) 1
incr a(n)
append a(s) x y
lappend a(l) p q
puts "$a(n) $a(s) $a(l)"
puts [lsort [array names a]]
