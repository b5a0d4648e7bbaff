set s "one,two,three"
puts [join [split $s ,] |]
