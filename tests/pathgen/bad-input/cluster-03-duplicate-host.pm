cluster c
host h0 cpus=4
host h1 cpus=4
host h0 cpus=4
