set l [list a b "c d"]
puts "list is: $l"
puts [string length $l]
append l " e"
puts [llength $l]
