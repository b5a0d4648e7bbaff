proc ::top {} { return top }
puts [top]
