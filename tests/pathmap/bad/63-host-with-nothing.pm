host h0
host h1
tree t
core c host=h0
threads 0 host=h0 enter=c
