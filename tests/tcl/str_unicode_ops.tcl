set s "aé☺b"
puts [string length $s]
puts [string index $s 2]
puts [string range $s 1 2]
puts [string first ☺ $s]
puts [string reverse $s]
puts [string toupper $s]
