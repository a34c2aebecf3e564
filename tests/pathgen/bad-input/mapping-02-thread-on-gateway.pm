threads 0-31 host=a0
threads 32-35 host=gw
