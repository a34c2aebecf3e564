tree sum threads=1-32
