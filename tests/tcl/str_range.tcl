puts [string range abcdef 1 3]
puts [string range abcdef 2 end]
puts [string range abcdef end-1 end]
puts <[string range abcdef 4 2]>
puts [string range abcdef -3 1]
puts [string range abcdef 3 99]
