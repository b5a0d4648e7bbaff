catch {nosuchcommand a b} m
puts $m
