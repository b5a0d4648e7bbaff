catch {proc f {{a b c}} {}} m; puts $m
catch {proc f {{}} {}} m; puts $m
catch {proc f} m; puts $m
