puts {a
