host h0
tree t
core c host=h0 parent=g
gred g host=h0 parent=c
threads 0 host=h0 enter=g
