puts [split "a  b" " "]
puts [llength [split ",,," ,]]
