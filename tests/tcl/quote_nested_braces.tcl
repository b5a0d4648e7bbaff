puts {a {b {c}} d}
set x {{}}
puts [llength $x]
