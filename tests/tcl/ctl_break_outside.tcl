proc f {} { break }
catch {f} m
puts $m
catch {continue} m
puts $m
