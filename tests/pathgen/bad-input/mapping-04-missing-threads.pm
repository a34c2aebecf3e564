threads 0-31 host=a0
threads 32-61 host=b0
