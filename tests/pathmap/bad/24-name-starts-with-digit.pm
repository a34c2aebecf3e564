host 0h
tree t
core c host=0h
threads 0 host=0h enter=c
