threads 5-3 host=a0
