catch {error "my message"} m; puts $m
catch {error a b c} m; puts $m
puts $errorCode
catch {error} m; puts $m
