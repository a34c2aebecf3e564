host h0
host h1
tree t type=float op=sum
algo a run=auto candidates=ring,binomial-reduce
threads 0 host=h0 enter=a
threads 1 host=h1 enter=a
