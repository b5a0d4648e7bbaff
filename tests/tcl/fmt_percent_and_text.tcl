puts [format "100%%"]
puts [format "%s%%" 50]
puts [format "a%sb%sc" 1 2]
puts [format "no specifiers"]
