host h0
tree t
core c host=h0
gred g parent=c
threads 0 host=h0 enter=g
