host h0
host h1
tree t
gred g host=h0 parent=x
algo x run=rd parent=g
threads 0 host=h0 enter=x
threads 1 host=h1 enter=x
