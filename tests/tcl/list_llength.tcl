puts [llength {}]
puts [llength {a b c}]
puts [llength {{a b} c}]
puts [llength "a\tb\nc"]
catch {llength} m; puts $m
catch {llength a b} m; puts $m
