set l {a b c d e}
puts [lrange $l 1 3]
puts [lrange $l 0 end]
puts [lrange $l end-1 end]
puts <[lrange $l 3 1]>
puts [lrange $l -5 1]
puts [lrange $l 3 100]
puts [lrange {{a b} c} 0 0]
