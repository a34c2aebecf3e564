cluster a
host a0
gateway g1 joins=a,b
gateway g2 joins=a,b
cluster b
host b0
