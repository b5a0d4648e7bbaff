set s ""
foreach w {alpha beta gamma} { append s [string index $w 0] }
puts $s
set desc "sub pos {0 0 0} sphere 0.5"
puts [lindex $desc 2]
puts [lindex $desc end]
