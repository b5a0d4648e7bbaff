proc a {} { set la 1; b; return $la }
proc b {} { c }
proc c {} { upvar 2 la v; incr v 10; upvar #0 top t; set t here }
puts [a]
puts $top
