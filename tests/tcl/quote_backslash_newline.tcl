puts "a\
      b"
puts {a\
      b}
set x [list 1 \
   2 \
   3]
puts $x
