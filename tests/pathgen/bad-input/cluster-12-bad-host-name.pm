cluster a
host 0h
