puts [string tolower "HeLLo World"]
puts [string toupper "HeLLo World"]
puts [string toupper ""]
