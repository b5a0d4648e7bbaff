set r [catch {
  catch {error inner} m1
  error "outer $m1"
} m2]
puts "$r $m2"
