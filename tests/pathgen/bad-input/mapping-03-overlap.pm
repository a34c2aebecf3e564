threads 0-3 host=a0
threads 3-5 host=a1
