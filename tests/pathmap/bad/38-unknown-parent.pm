host h0
tree t
core c host=h0
gred g host=h0 parent=cc
threads 0 host=h0 enter=g
