package main

// The CLI's client links are toxiproxy proxies (in process): every run it
// publishes goes through toxiproxy, as the fault docs say.
import _ "github.com/lockcheck/lockcheck/faults/toxiproxy"
