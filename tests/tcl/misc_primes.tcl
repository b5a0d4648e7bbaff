set primes {}
for {set n 2} {$n < 50} {incr n} {
  set p 1
  foreach q $primes { if {$q * $q > $n} break; if {$n % $q == 0} { set p 0; break } }
  if {$p} { lappend primes $n }
}
puts $primes
