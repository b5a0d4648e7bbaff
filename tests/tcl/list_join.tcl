puts [join {a b c}]
puts [join {a b c} ,]
puts [join {a {b c} d} -]
puts <[join {}]>
puts [join {a b} ""]
