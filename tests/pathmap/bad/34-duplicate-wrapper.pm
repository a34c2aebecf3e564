host h0
tree a
core c host=h0
gred g host=h0 parent=c
threads 0-1 host=h0 enter=g
tree b
core c host=h0
gred g host=h0 parent=c
gred g host=h0 parent=c
threads 0-1 host=h0 enter=g
