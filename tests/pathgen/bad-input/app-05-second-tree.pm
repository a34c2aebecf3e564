tree sum threads=32
tree max op=max threads=32
