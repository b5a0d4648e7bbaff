proc fill {name} { upvar $name arr; set arr(a) 1; set arr(b) 2 }
fill data
puts [lsort [array names data]]
