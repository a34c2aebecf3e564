cluster a
host a0
gateway gw joins=a,z
cluster b
host b0
