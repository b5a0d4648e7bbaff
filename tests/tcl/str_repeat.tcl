puts [string repeat ab 3]
puts <[string repeat ab 0]>
puts <[string repeat "" 5]>
puts [string length [string repeat x 1000]]
