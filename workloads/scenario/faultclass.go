package scenario

import (
	"slices"
	"strings"

	"github.com/lockcheck/lockcheck/model"
)

// Fault classes group scenarios by what breaks (the scoreboard's columns).
const (
	FaultNone     = "none"
	FaultNetwork  = "partition/latency"
	FaultProcess  = "process pause/crash"
	FaultRestart  = "restart/persistence"
	FaultFailover = "failover/Sentinel"
	FaultClock    = "clock"
	FaultOther    = "other"
)

// FaultClasses lists the fault classes in column order.
func FaultClasses() []string {
	return []string{FaultNone, FaultNetwork, FaultProcess, FaultRestart, FaultFailover, FaultClock, FaultOther}
}

// faultClasses classes the catalog's scenarios by name; a test keeps it
// complete.
var faultClasses = map[string]string{
	"no-faults": FaultNone, "cluster-no-faults": FaultNone, "redlock-no-faults": FaultNone,
	"partition-short": FaultNetwork, "latency-short": FaultNetwork, "partition-long": FaultNetwork, "partition-timeout": FaultNetwork,
	"redis-pause-short": FaultProcess, "client-crash": FaultProcess, "client-stall": FaultProcess, "client-interrupt": FaultProcess, "process-pause": FaultProcess, "pause-mix": FaultProcess,
	"redis-pause-long-hold": FaultProcess, "client-stall-long-hold": FaultProcess, "reset-holder-short": FaultNetwork,
	"renewal-refused": FaultNetwork, "slow-reply": FaultNetwork, "client-conn-kill": FaultNetwork, "wire-mix": FaultNetwork,
	"subscribe-refused": FaultNetwork, "subscribe-slow": FaultNetwork,
	"restart-aof-always": FaultRestart, "restart-no-persistence": FaultRestart, "redlock-restart-empty": FaultRestart,
	"sentinel-failover-idle": FaultFailover, "sentinel-failover-held": FaultFailover,
	"sentinel-failover-wait": FaultFailover, "sentinel-split-brain": FaultFailover,
	"clock-strobe": FaultClock, "clock-jump-backward": FaultClock, "clock-jump-forward": FaultClock,
	"clock-drift": FaultClock, "redlock-clock-jump": FaultClock, "fair-clock-skew": FaultClock,
}

// FaultClass returns the fault class of the scenario called name: the
// catalog's own entry, else one guessed from the name's words (a scenario
// added without an entry), else FaultOther.
func FaultClass(name string) string {
	if c, ok := faultClasses[name]; ok {
		return c
	}
	for _, g := range []struct{ word, class string }{
		{"clock", FaultClock}, {"sentinel", FaultFailover}, {"failover", FaultFailover}, {"cluster", FaultFailover},
		{"restart", FaultRestart}, {"partition", FaultNetwork}, {"latency", FaultNetwork},
		{"pause", FaultProcess}, {"crash", FaultProcess}, {"stall", FaultProcess}, {"kill", FaultProcess},
		{"no-faults", FaultNone},
	} {
		if strings.Contains(name, g.word) {
			return g.class
		}
	}
	return FaultOther
}

// Tolerated returns the checkers (of those that ran) whose Invalid verdict
// e accepts on a scenario that is safe or not: those e requires Invalid,
// and, when e's combined verdict may be Invalid (detected, or anything
// goes with some checkers named), every checker it neither requires Valid
// nor names quiet (fencing excepted: tokens exist to outlive the lease an
// unsafe scenario breaks, so only naming it excuses it; fault-allowance
// excepted: an anomaly beyond every fault's allowance is a finding on any
// scenario). An informational expectation (it names nothing)
// tolerates everything on an unsafe scenario ("measured") and, on a safe
// one, only its MayBreak (a mutant's: nothing). A safe scenario's ExpectValid tolerates none.
// These are the properties a scenario breaks in any lease lock by design
// (a holder stalled past its lease, a restart that forgets the lock), so a
// scoreboard does not count them against the library.
func (e Expect) Tolerated(ran []string, safe bool) []string {
	if e.Skip != "" || (safe && e.Informational() && len(e.MayBreak) == 0) {
		return nil
	}
	var out []string
	for _, c := range ran {
		want, named := e.Checkers[c]
		switch {
		case slices.Contains(e.MayBreak, c):
			out = append(out, c)
		case named && want == model.Invalid:
			out = append(out, c)
		case named || e.Verdict == model.Valid:
		case c == model.CheckAllowance:
			// Beyond the fault is a finding on any scenario: only naming
			// it excuses it.
		case c == model.CheckFencing && e.Detects():
			// Fencing exists to outlive an expired lease: a detecting
			// expectation excuses it only by naming it.
		case !slices.Contains(e.Quiet, c):
			out = append(out, c)
		}
	}
	return out
}
