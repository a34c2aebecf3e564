host h0
tree t
core c host=h0   # a  in a comment
threads 0 host=h0 enter=c
