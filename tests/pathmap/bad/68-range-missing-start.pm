host h0
tree t
core c host=h0
gred g host=h0 parent=c
threads -3 host=h0 enter=g
