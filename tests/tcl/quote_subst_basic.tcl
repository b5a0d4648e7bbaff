set a 5
puts [subst {a=$a b=[expr $a*2] c=\t|}]
puts [subst -nocommands {$a [expr 1]}]
puts [subst -novariables {$a [expr 1]}]
puts [subst -nobackslashes {$a\t}]
