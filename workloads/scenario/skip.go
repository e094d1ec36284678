package scenario

import (
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Reasons a subject cannot run on a topology (the matrix records them).
const (
	skipNeedsNodes    = "needs N independent nodes (the redlock topology)"
	skipNeedsReplicas = "WAIT needs replicas behind one master connection (the Sentinel topology)"
	skipNeedsOneRedis = "needs one Redis (single server, Sentinel or Cluster), not N independent nodes"
	skipNeedsAddress  = "this external driver dials one Redis address (its banner announces no Sentinel or Cluster topology)"
)

// needsAddress says s is (or mixes in) an external driver, which connects to
// one host:port.
func needsAddress(s subject.Subject) bool { return s.Needs == subject.NeedsOneAddress }

// needsNodes says s runs over N independent nodes (the RedLock).
func needsNodes(s subject.Subject) bool { return s.Needs == subject.NeedsRedlockNodes }

// needsReplicas says s follows its lock commands with WAIT, which only
// means something with replicas (the "-wait" subjects).
func needsReplicas(s subject.Subject) bool { return s.Needs == subject.NeedsReplicas }

// DefaultSkip is the Skip of a scenario on one Redis without replicas (the
// single-server topology): the RedLock and the WAIT-synced locks cannot run.
func DefaultSkip(s subject.Subject) string {
	switch {
	case needsNodes(s):
		return skipNeedsNodes
	case needsReplicas(s):
		return skipNeedsReplicas
	}
	return ""
}

// skipOnSentinel lets the WAIT-synced locks run (a master with replicas).
func skipOnSentinel(s subject.Subject) string {
	switch {
	case needsNodes(s):
		return skipNeedsNodes
	case needsAddress(s):
		return skipNeedsAddress
	}
	return ""
}

// skipOnNodes lets only the RedLock run.
func skipOnNodes(s subject.Subject) string {
	if !needsNodes(s) {
		return skipNeedsOneRedis
	}
	return ""
}

func (sc Scenario) skip(s subject.Subject) string {
	if sc.Skip != nil {
		return sc.Skip(s)
	}
	return DefaultSkip(s)
}

// registry returns the registry a run in e resolves subjects with: base
// (nil: catalog.Subjects), with the subjects of the redlock topology
// bound to e's nodes, and with e's client clocks when it has them.
func (e *Env) registry(base *subject.Registry) (*subject.Registry, error) {
	if base == nil {
		base = catalog.Subjects
	}
	var err error
	if len(e.RedlockNodes) > 0 {
		if base, err = base.OnNodes(e.RedlockNodes, e.RedlockPassword); err != nil {
			return nil, err
		}
	}
	if len(e.ClientClocks) > 0 {
		return e.clockedSubjects(base)
	}
	return base, nil
}

// skipNoInterrupt skips, besides DefaultSkip's, the subjects whose calls
// cannot be interrupted (a driver that does not announce interrupts): an
// interrupt would end their client process, a crash, not an interrupt.
func skipNoInterrupt(s subject.Subject) string {
	if !s.CanInterrupt() {
		return "its driver does not announce interrupts (capability interrupt): a cancelled call ends its process"
	}
	return DefaultSkip(s)
}
