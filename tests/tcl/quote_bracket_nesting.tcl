puts [string length [string repeat [string index abc 1] 3]]
puts "x[list a [list b c]]y"
