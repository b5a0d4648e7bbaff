proc f {a b} { return [info level] }
puts [f 1 2]
proc g {a b} { return [info level 0] }
puts [g x y]
proc h {} { return [info level [info level]] }
puts [h]
puts [info level]
proc outer {} { inner }
proc inner {} { info level -1 }
puts [outer]
