# a pathmap word is no cluster mapping keyword
cluster c
node h0
