set g 1
global g
puts $g
