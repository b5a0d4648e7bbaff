array set a {x 1 y 2 z 3}
array unset a y
puts [lsort [array names a]]
array unset a
puts [array exists a]
array set b {ab 1 ac 2 bc 3}
array unset b a*
puts [array names b]
