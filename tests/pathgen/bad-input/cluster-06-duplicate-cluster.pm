cluster a
host x
cluster a
host y
