set g 1
proc f {} { global g; incr g }
f; f
puts $g
proc h {} { global newvar; set newvar created }
h
puts $newvar
