set l {1 2 3}
foreach x $l { lappend l [expr {$x * 10}] }
puts $l
