host h0
tree t type=int32 kind=sum
core c host=h0
threads 0 host=h0 enter=c
