cluster a
host a0
gateway a0 joins=a,b
cluster b
host b0
