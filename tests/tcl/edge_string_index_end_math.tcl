puts [string index abcdef end-0]
puts [string range abcdef 1+1 end-1]
puts [string index abcdef 2-1]
