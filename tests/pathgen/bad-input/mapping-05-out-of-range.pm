threads 60-64 host=b3
