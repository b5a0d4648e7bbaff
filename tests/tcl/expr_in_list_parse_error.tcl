catch {expr {"a" in "{b"}} m; puts $m
