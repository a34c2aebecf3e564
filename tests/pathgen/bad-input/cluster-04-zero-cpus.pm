cluster c
host h0 cpus=0
