host h0
host h1
tree t
core c host=h0
gred g host=h0 parent=c
proxy p host=h1 parent=g peer=h0
threads 0 host=h0 enter=g
threads 1 host=h1 enter=p
