host h0
tree t
core c host=   # the host is missing
threads 0 host=h0 enter=c
