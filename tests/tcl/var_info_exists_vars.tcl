set a 1
proc f {x} { set y 2; return [lsort [info vars]] }
puts [f 1]
puts [info exists a]
puts [info exists nosuch]
proc g {} { set abc 1; set abd 2; set x 3; lsort [info vars ab*] }
puts [g]
