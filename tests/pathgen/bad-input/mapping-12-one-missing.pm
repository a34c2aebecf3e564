threads 0-62 host=a0
