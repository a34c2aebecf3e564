host h0
host h1
host h2
host h3
tree t
algo x run=nap
threads 0 host=h0 enter=x
threads 1 host=h1 enter=x
threads 2 host=h2 enter=x
threads 3 host=h3 enter=x
