# hosts belong to the last cluster line
host h0 cpus=4
