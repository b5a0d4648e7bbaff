puts [list a
