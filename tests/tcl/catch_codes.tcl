puts [catch {set x 1}]
puts [catch {error oops}]
puts [catch {return 5}]
puts [catch {break}]
puts [catch {continue}]
puts [catch {error oops} msg]
puts $msg
puts [catch {set y 7} msg]
puts $msg
