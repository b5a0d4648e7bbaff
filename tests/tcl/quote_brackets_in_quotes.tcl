puts "a]b"
puts [list "a]b" {c]d}]
