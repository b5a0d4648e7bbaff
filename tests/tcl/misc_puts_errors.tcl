catch {puts} m; puts $m
catch {puts a b c d} m; puts $m
catch {puts nochannel text} m; puts $m
