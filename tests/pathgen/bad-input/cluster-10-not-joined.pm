cluster a
host a0
cluster b
host b0
