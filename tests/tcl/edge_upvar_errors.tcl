proc f {} { upvar 5 x y }
catch f m; puts $m
proc g {} { set y 1; upvar x y }
catch g m; puts $m
