package main

import (
	"slices"
	"testing"

	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// A Go subject served as a driver announces the claims of its registration:
// the peers' adapters extend their holds (a watchdog, no reentrancy), the
// simple lock renews nothing, the Redisson port does both.
func TestGoCapabilities(t *testing.T) {
	for name, want := range map[string][]string{
		"redsync":   {driver.CapWatchdog},
		"redislock": {driver.CapWatchdog},
		"simple":    nil,
		"reentrant": {driver.CapReentrant, driver.CapWatchdog},
	} {
		s, err := catalog.Subjects.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := catalog.DriverCapabilities(s); !slices.Equal(got, want) {
			t.Errorf("%s: capabilities %v, want %v", name, got, want)
		}
	}
}
