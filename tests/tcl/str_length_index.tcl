puts [string length ""]
puts [string length abc]
puts [string length "a b\tc"]
puts [string index abcdef 0]
puts [string index abcdef end]
puts [string index abcdef end-2]
puts <[string index abc 5]>
puts <[string index abc -1]>
