set "with space" 1
puts [set "with space"]
set {} empty
puts [set {}]
