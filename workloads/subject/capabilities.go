package subject

import "github.com/lockcheck/lockcheck/impl/driver"

// DriverCapabilities are what s announces when a Go lock is served over
// the driver protocol (`lockcheck driver NAME`, process pauses): the claims
// its registration makes (a watchdog unless NoWatchdog, as the Go peers'
// adapters extend their holds; fencing tokens when Fenced).
func (s Subject) DriverCapabilities() []string {
	var caps []string
	if s.Reentrant {
		caps = append(caps, driver.CapReentrant)
	}
	if !s.NoWatchdog {
		caps = append(caps, driver.CapWatchdog)
	}
	if s.Fair {
		caps = append(caps, driver.CapFair)
	}
	if s.Fenced {
		caps = append(caps, driver.CapFenced)
	}
	return caps
}
