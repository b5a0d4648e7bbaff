puts {a}b
