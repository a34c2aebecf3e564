cluster a
host a0
gateway gw joins=a
