host h0
host h1
host gw
tree t
algo x run=clv root=gw
gred g0 host=h0 parent=x
gred g1 host=h1 parent=x
proxy p host=gw parent=g1
threads 0-1 host=h0 enter=g0
threads 2-3 host=h1 enter=g1
threads 4 host=gw enter=p
