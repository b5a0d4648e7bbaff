puts [split "a b c"]
puts [split "a,b,,c" ,]
puts [split "abc" ""]
puts [split "a.b-c" ".-"]
puts <[split "" ,]>
puts [llength [split "  a  " " "]]
puts [split "a\nb" \n]
