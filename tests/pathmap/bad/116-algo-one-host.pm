host h0
host h1
tree t
algo x run=rd
gred g host=h0 parent=x
threads 0-1 host=h0 enter=g
tree u
core c host=h1
threads 2 host=h1 enter=c
