puts "a"b
