puts [concat a b c]
puts [concat {a b} {c d}]
puts [concat "  a  " " b "]
puts <[concat]>
puts [concat {} a {} b]
puts [concat {a {b c}} d]
