puts "abc
