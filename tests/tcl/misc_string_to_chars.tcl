foreach c [split "héllo" ""] { puts -nonewline "$c." }
puts ""
