host h0
host h1
tree t
algo x run=slt segments=0
threads 0 host=h0 enter=x
threads 1 host=h1 enter=x
