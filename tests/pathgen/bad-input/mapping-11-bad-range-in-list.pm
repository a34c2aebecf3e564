threads 0-3,4-x host=a0
