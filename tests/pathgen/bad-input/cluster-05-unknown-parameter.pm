cluster c
host h0 cpu=4
