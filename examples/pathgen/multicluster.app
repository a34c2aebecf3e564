# One allreduce tree over 64 threads (32 on each cluster).
tree sum type=int32 op=sum threads=64
