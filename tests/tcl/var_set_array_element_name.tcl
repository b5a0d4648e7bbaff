set name a(b)
set $name 5
puts $a(b)
puts [set a(b)]
