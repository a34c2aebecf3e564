host h0
tree t
core c host=h0
gred g host=h0 parent=c
threads 1048575,1048576 host=h0 enter=g
