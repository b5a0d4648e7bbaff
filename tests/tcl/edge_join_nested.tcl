puts [join {{a b} {c d}} ";"]
puts [join [list [list 1 2] 3] +]
