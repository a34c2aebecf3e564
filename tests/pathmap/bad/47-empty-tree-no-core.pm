host h0
tree first
tree second
core c host=h0
threads 0 host=h0 enter=c
