host h0
tree type=int64 op=max
core c host=h0
threads 0 host=h0 enter=c
