catch {error boom} m opts
puts [lindex $opts 0] ; puts [lindex $opts 1]
catch {set x 1} m opts
puts [lindex $opts 1]
