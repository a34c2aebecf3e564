threads 0-3
