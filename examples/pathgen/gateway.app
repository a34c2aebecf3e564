tree sum type=int32 op=sum threads=4
