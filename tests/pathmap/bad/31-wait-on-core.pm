host h0
tree t
core c host=h0 wait=block
threads 0 host=h0 enter=c
