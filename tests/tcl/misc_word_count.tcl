set text "a b a c b a"
foreach w $text { if {[info exists cnt($w)]} { incr cnt($w) } else { set cnt($w) 1 } }
foreach w [lsort [array names cnt]] { puts "$w $cnt($w)" }
