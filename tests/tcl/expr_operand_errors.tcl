catch {expr {"abc" + 1}} m; puts $m
catch {expr {"" + 1}} m; puts $m
catch {expr {-"abc"}} m; puts $m
catch {expr {1 && "abc"}} m; puts $m
catch {expr {!"abc"}} m; puts $m
catch {expr {"abc" ? 1 : 2}} m; puts $m
catch {expr {"nan" + 1}} m; puts $m
