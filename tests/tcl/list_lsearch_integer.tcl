set l {10 20 030 40}
puts [lsearch -integer $l 20]
puts [lsearch -integer $l 24]
puts [lsearch -exact $l 030]
puts [lsearch -exact -integer {1 2 3} 3]
