puts [list a{b}c "{ab}" a\{b a\}b "a b}" "a\\" "\\"]
