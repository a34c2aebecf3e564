host h0
tree t
	 	cores c host=h0
threads 0 host=h0 enter=c
