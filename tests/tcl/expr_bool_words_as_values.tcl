set t true
puts [expr {$t ? 1 : 0}]
puts [expr {!$t}]
if {"yes"} {puts ok}
if {off} {puts bad} else {puts fine}
