set l {a b c}
puts [list {*}$l d]
puts [llength [list {*}$l {*}$l]]
puts [list {*}{} x]
