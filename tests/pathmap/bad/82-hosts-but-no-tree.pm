host h0
host h1
