catch {string} m; puts $m
catch {string length} m; puts $m
catch {string index abc x} m; puts $m
catch {string repeat a x} m; puts $m
catch {string is bogus x} m; puts [string range $m 0 20]
