cluster a
host a0
gateway gw cpus=2
