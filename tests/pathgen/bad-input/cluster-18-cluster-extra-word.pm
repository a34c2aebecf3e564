cluster a b
