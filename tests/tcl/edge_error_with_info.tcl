catch {error msg "custom info"} m
puts $m
puts $errorInfo
