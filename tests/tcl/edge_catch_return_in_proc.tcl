proc f {} { set r [catch {return inner} m]; return "$r $m" }
puts [f]
