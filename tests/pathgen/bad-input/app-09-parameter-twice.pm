tree sum threads=32 type=int32 threads=8
