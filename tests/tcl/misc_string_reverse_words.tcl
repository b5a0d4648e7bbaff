set s "the quick brown fox"
puts [join [lreverse [split $s]] " "]
