tree sum op=prod threads=32
