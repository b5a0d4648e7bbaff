set l [list "a\\b" "c\\" "\\{"]
puts $l
puts [llength $l]
foreach e $l { puts $e }
