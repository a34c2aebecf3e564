host h0
host h1
tree t
core c host=h0
algo x run=rd
threads 0 host=h0 enter=x
threads 1 host=h1 enter=x
