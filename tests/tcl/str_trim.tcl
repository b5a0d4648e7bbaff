puts <[string trim "  a b  "]>
puts <[string trimleft "  a b  "]>
puts <[string trimright "  a b  "]>
puts [string trim xxabcxx x]
puts [string trim "abcba" ab]
puts [string trimleft 00120 0]
puts <[string trim "\t\n x \n"]>
