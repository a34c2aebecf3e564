cluster a
host a0
cluster b
host b0
gateway gw joins=a,b
cluster c
host c0
