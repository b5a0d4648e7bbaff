proc f {} { set a(1) x; set a(2) y; return [lsort [array names a]] }
puts [f]
proc g {arr} { upvar $arr a; return $a(k) }
set data(k) v
puts [g data]
