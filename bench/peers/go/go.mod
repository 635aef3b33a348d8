module toposched.example/peers/go

go 1.19
