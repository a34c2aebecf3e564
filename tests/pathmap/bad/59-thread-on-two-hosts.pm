host h0
host h1
tree a
core c host=h0
threads 0 host=h0 enter=c
tree b
core c host=h1
threads 0 host=h1 enter=c
