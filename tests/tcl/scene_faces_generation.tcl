set faces1 {}
foreach ff {
    {{0 0 0} {1 0 0} {1 1 0} {0 1 0}}
    {{0 0 1} {1 0 1} {1 1 1} {0 1 1}}
} {
    set f1 {color black}
    foreach pp $ff {
        set x [expr {[lindex $pp 0] - 0.5}]
        set y [expr {[lindex $pp 1] - 0.5}]
        set z [expr {[lindex $pp 2] - 0.5}]
        lappend f1 [list $x $y $z]
    }
    set faces1 "$faces1 face {$f1}"
}
puts $faces1
puts [llength $faces1]
