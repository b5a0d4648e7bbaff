puts [list {*} x]
set cmd {puts hello}
{*}$cmd
