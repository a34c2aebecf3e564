thread 0-3 host=a0
