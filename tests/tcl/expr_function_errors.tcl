catch {expr {sqrt(-1)}} m; puts $m
catch {expr {acos(2)}} m; puts $m
catch {expr {log(-1)}} m; puts $m
catch {expr {foo(1)}} m; puts $m
catch {expr {sin()}} m; puts $m
catch {expr {sin(1, 2)}} m; puts $m
catch {expr {int("x")}} m; puts $m
catch {expr {abs("a")}} m; puts $m
catch {expr {max("a", 1)}} m; puts $m
catch {expr {isqrt(-1)}} m; puts $m
catch {expr {fmod(1, 0)}} m; puts $m
