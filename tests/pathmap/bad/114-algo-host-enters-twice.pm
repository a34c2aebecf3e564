host h0
host h1
tree t
algo x run=rd
gred g0 host=h0 parent=x
threads 0-1 host=h0 enter=g0
threads 2 host=h1 enter=x
threads 3 host=h0 enter=x
