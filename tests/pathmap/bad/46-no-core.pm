host h0
tree t type=int64
gred g host=h0 parent=g
threads 0 host=h0 enter=g
