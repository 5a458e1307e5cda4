module example.com/hotplex-go-client

go 1.19
