host h0
tree t
core c host=h0
gred g host=h0 parent=c
proxy p host=h0 parent=g
threads 0 host=h0 enter=g
threads 1 host=h0 enter=p
