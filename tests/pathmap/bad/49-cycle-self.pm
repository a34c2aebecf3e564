host h0
tree t
core c host=h0
gred g host=h0 parent=g
threads 0 host=h0 enter=c
