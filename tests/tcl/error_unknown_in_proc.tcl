proc f {} { undefined_cmd }
catch {f} m
puts $m
