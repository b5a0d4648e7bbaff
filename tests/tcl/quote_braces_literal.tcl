set a 1
puts {$a [set a] \n}
puts "$a [set a] \\n"
