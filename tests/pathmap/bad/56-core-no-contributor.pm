host h0
tree t
core c host=h0
