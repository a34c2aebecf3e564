tree sum threads=0
