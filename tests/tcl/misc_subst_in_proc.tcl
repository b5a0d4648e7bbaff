proc greet {name} { subst {Hello, $name! You have [string length $name] letters.} }
puts [greet World]
