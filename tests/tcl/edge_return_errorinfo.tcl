proc f {} {return -code error -errorinfo "INFO" msg}
catch f
puts $errorInfo
proc g {} { f }
catch g
puts $errorInfo
puts [lindex {a b c} 1+-1]
catch {f ; set x 1} m
puts $errorInfo
proc h {} {nosuch ;}
catch h; puts $errorInfo
