if 1 {puts a}
if 0 {puts no} else {puts b}
if {0} then {puts no} elseif {1} then {puts c} else {puts no}
if 0 {puts no} elseif 0 {puts no}
puts [if 0 {set x 1}]
if {1} then {puts d}
if 0 {puts no} {puts e}
