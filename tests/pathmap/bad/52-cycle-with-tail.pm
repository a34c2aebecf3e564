host h0
tree t
core c host=h0
gred w host=h0 parent=x
gred x host=h0 parent=y
gred y host=h0 parent=x
threads 0 host=h0 enter=c
threads 1 host=h0 enter=w
