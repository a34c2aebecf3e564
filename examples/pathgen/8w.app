# Gsum's allreduce: one tree, 32 threads (the paper's 8W runs).
tree sum type=int32 op=sum threads=0-31
