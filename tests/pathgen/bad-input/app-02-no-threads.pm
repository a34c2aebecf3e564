tree sum type=int32
