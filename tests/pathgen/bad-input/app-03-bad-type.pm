tree sum type=int16 threads=32
