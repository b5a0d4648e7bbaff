proc swap {an bn} { upvar $an a $bn b; set t $a; set a $b; set b $t }
set x 1; set y 2
swap x y
puts "$x $y"
proc setit {name val} { upvar 1 $name v; set v $val }
setit z 9
puts $z
