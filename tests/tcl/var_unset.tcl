set a 1
unset a
puts [info exists a]
catch {unset a} m; puts $m
unset -nocomplain a
set x 1; set y 2
unset x y
puts [info exists x][info exists y]
unset -nocomplain -- z
puts ok
