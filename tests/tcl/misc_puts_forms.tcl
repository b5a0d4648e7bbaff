puts -nonewline "no newline"
puts ""
puts stdout "to stdout"
puts "multiple\nlines"
