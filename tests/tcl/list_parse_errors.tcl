catch {llength "a {b"} m; puts $m
catch {llength "a \"b"} m; puts $m
catch {llength "{a}b"} m; puts $m
catch {llength "\"a\"b c"} m; puts $m
