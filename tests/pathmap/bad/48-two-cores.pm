host h0
tree t
core c1 host=h0
core c2 host=h0
threads 0 host=h0 enter=c1
threads 1 host=h0 enter=c2
