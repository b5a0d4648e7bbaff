proc myproc {x {y 3} args} { return [expr {$x + $y}] }
puts [info procs myproc]
puts [info args myproc]
puts [info body myproc]
puts [info procs nosuch*]
catch {info body set} m; puts $m
puts [info default myproc y d]$d
puts [info default myproc x d]<$d>
