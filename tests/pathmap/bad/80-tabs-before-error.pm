host	h0
tree	t
core	c	host=h0
	gred	g	host=h0	parent=c	wait=fast
threads	0-1	host=h0	enter=g
