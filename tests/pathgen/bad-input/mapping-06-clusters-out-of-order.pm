threads 0-31 host=b0
threads 32-63 host=a0
