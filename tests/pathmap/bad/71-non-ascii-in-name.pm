host h0
tree t   # UTF-8 in a comment is fine: grün, 木
core c host=h0
gred grün host=h0 parent=c
threads 0 host=h0 enter=c
