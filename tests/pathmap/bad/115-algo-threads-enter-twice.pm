host h0
host h1
tree t
algo x run=ring
threads 0-1 host=h0 enter=x
threads 2 host=h1 enter=x
