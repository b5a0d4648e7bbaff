set s "héllo wörld"
puts [string length $s]
puts [string toupper $s]
puts [string index $s 1]
puts [string range $s 6 end]
