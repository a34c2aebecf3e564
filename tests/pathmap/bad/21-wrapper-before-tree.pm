host h0
core c host=h0
tree t
threads 0 host=h0 enter=c
