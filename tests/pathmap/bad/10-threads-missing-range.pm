host h0
tree t
core c host=h0
threads host=h0 enter=c
