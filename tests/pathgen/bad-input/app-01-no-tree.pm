# no tree line at all
