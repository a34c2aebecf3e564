# a pathmap with nothing but comments
	
   # an indented comment

