proc f {} {
  set x 1
  error "bad thing"
}
catch f
puts $errorInfo
