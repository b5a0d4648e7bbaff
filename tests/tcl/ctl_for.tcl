for {set i 0} {$i < 3} {incr i} { puts $i }
for {set i 10} {$i > 0} {set i [expr {$i / 2}]} { puts -nonewline "$i " }
puts ""
