set a(1) one
set b(one) found
puts $b($a(1))
puts $b([set a(1)])
