catch {if} m; puts $m
catch {if 1} m; puts $m
catch {if 1 then} m; puts $m
catch {if 0 {} else} m; puts $m
catch {if 0 {} else {} extra} m; puts $m
catch {if {"x"} {}} m; puts $m
