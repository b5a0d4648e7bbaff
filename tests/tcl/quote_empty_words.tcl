puts [llength [list {} "" {}]]
puts "[list {} ""]"
