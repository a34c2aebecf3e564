host h0
host h1
tree t
algo x run=chain-reduce bcast=chain-bcast segments=4 shape=ompi
threads 0 host=h0 enter=x
threads 1 host=h1 enter=x
