# a comment
set a 1 ;# trailing comment
puts $a
# comment with \
continuation line
puts "#not a comment"
puts {# not either}
