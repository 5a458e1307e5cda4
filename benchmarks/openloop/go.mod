module example.com/hotplex-openloop

go 1.19
