set a {1 2 3}
set b $a
lset b 0 x
puts "$a | $b"
