cluster a
host a0
  cluster   b
gateway gw joins=a,b
