trees sum threads=32
