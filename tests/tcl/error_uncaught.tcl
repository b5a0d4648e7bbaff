puts start
error "fatal"
puts never
