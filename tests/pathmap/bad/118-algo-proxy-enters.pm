host h0
host h1
tree t
algo x run=rd
threads 0 host=h0 enter=x
proxy p1 host=h1 parent=x
threads 1 host=h1 enter=p1
