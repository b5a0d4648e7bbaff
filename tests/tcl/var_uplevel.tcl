proc f {} { uplevel 1 {set fromf 1} }
f
puts $fromf
proc g {} { set loc 5; h; return $loc }
proc h {} { uplevel {incr loc} }
puts [g]
proc k {} { uplevel #0 {set gl 7} }
k
puts $gl
puts [uplevel 0 {expr 1+1}]
