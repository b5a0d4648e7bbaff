catch {error m i CODE} r
puts $errorCode
catch {expr 1/0} r
puts $r
