set cmds {}
foreach n {a b c} { lappend cmds [list set var_$n [string toupper $n]] }
eval [join $cmds \n]
puts "$var_a $var_b $var_c"
