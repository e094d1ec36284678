package main

import (
	"github.com/lockcheck/lockcheck/faults/container"
	"github.com/lockcheck/lockcheck/faults/toxiproxy"
	"github.com/lockcheck/lockcheck/results/plots"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
)

// assemble wires what this binary has into the registries and hooks the
// library packages read, and is the only place that does: run directories
// get their latency and throughput plots (results.RegisterPlots), client
// links are toxiproxy proxies in process (faults.RegisterLocalLink), the Go
// peers and lockcheck's own reentrant lock served over the driver protocol
// are subjects (catalog.Subjects), go-redis logs to redisLog and
// testcontainers neither logs nor starts its reaper (container.Quiet). main
// calls it before anything runs, the tests' TestMain likewise. Call it once
// per process: a second call fails on the subjects' names.
func assemble() error {
	plots.Register()
	container.Quiet()
	toxiproxy.Register()
	installRedisLog()
	if err := gopeers.Register(catalog.Subjects); err != nil {
		return err
	}
	return catalog.Subjects.Register(goDriverSubject())
}
