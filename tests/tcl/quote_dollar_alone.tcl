puts "a$"
puts "$ b"
puts a$
set x 5
puts "cost: $$x"
