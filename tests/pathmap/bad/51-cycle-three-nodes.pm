host h0
tree t
core c host=h0
gred x host=h0 parent=z
gred y host=h0 parent=x
gred z host=h0 parent=y
threads 0 host=h0 enter=c
