puts [list a {b c} "d\"e" f\{g "h\\i" {} \{ \} x\[ \$y "#x" x#]
puts [list "a;b" "\n" "\t" "a\nb"]
