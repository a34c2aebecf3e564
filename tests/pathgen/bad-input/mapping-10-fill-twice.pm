fill
fill
