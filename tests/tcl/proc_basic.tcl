proc add {a b} { expr {$a + $b} }
puts [add 2 3]
proc noargs {} { return hi }
puts [noargs]
proc implicit {} { set x 5 }
puts [implicit]
