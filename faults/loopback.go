package faults

import (
	"fmt"
	"os"
	"sync/atomic"
)

// loopbackSeq numbers the addresses LoopbackHost hands out.
var loopbackSeq atomic.Uint32

// LoopbackHost returns a loopback address (127.a.b.c) that no earlier call in
// this process returned, for a server that must be told apart from others by
// its address alone (server↔server partitions filter on addresses). All of
// 127.0.0.0/8 reaches this machine on Linux; 127.0.0.0/16 (and so 127.0.0.1)
// is never used.
//
// The second and third octets come from the process id, so that concurrent
// processes (go test runs packages in parallel) use disjoint addresses; the
// last octet counts up and wraps after 254 addresses, by which time the
// first servers are normally long gone.
func LoopbackHost() string {
	pid := os.Getpid()
	n := loopbackSeq.Add(1) - 1
	a := 1 + (pid>>8)%254
	b := pid % 256
	c := 1 + int(n%254)
	return fmt.Sprintf("127.%d.%d.%d", a, b, c)
}
