puts [lreverse {a b c}]
puts [lreverse {}]
puts [lreverse {{a b} c}]
