puts <[concat "" " " {}]>
puts [concat a\n b]
