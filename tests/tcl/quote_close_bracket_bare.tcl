puts a]b
set x a]
puts $x
