host h0
tree t type=real
core c host=h0
threads 0 host=h0 enter=c
