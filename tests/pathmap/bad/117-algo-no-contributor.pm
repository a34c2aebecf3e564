host h0
host h1
tree t
algo x run=rd
tree u
core c host=h0
gred g host=h0 parent=c
threads 0 host=h0 enter=g
threads 1 host=h1 enter=p
proxy p host=h1 parent=g
