puts [llength [info commands set]]
puts [info commands lsor*]
proc zzz {} {}
puts [info commands zzz]
puts [lsort [info procs z*]]
