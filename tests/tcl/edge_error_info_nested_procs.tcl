proc a {} { b }
proc b {} { error deep }
catch a
puts $errorInfo
