puts [lassign {a b c} x y]
puts "$x $y"
puts [lassign {a} p q r]
puts "<$p><$q><$r>"
puts [lassign {1 2 3 4}]
