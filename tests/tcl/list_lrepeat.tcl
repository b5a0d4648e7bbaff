puts [lrepeat 3 a]
puts [lrepeat 2 a b]
puts <[lrepeat 0 a]>
