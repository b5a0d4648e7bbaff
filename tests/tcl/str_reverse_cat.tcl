puts [string reverse abc]
puts [string reverse ""]
puts [string cat a b c]
puts <[string cat]>
