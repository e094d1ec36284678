module example.com/userlock

go 1.26.0

require (
	github.com/lockcheck/lockcheck v0.0.0
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/Shopify/toxiproxy/v2 v2.5.0 // indirect
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)

replace github.com/lockcheck/lockcheck => ../../../..
