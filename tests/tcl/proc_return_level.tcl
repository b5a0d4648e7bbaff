proc inner {} { return -level 2 "from inner" }
proc outer {} { inner; return "outer" }
puts [outer]
