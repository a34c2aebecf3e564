threads 0-3 host=a9
