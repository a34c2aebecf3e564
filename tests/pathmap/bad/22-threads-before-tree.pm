host h0
threads 0 host=h0 enter=c
tree t
core c host=h0
