puts [subst "a\\\nb"]
puts [subst {x\ty}]
