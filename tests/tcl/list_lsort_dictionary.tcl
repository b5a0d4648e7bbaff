puts [lsort -dictionary {a10 a2 A1 b B a1}]
puts [lsort -dictionary {x10y x9y x10a X10y}]
puts [lsort -dictionary {file1.txt file10.txt file2.txt File3.txt}]
puts [lsort -dictionary {a01 a1 a001}]
