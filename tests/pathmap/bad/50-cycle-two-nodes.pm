host h0
tree t
core c host=h0
gred a host=h0 parent=b
gred b host=h0 parent=a
threads 0 host=h0 enter=c
