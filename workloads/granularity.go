package workloads

import "time"

// withLeaseGranularity returns p with every lease it asks for rounded up to
// a whole multiple of g, for a lock that keeps leases in units of g (and
// rounds other leases up): the explicit lease and the leases of overrun
// phases. The checkers then judge the lease the lock really holds. g <= 0
// returns p unchanged; p's Phases are copied, not changed.
func (p Plan) withLeaseGranularity(g time.Duration) Plan {
	if g <= 0 {
		return p
	}
	p.Lease = roundUp(p.Lease, g)
	if p.Phases != nil {
		ph := *p.Phases
		ph.OverrunLease = Range{Min: roundUp(ph.OverrunLease.Min, g), Max: roundUp(ph.OverrunLease.Max, g)}
		p.Phases = &ph
	}
	return p
}

// roundUp rounds d > 0 up to a whole multiple of g > 0; d <= 0 stays.
func roundUp(d, g time.Duration) time.Duration {
	if d <= 0 || g <= 0 {
		return d
	}
	return (d + g - 1) / g * g
}

// scaleWithLease returns wait grown by the factor by which rounding up to g
// grows lease: a bound a scenario sets in leases (client-crash's MaxWait is
// two of them) follows the lease the subject really runs with.
func scaleWithLease(wait, lease, g time.Duration) time.Duration {
	r := roundUp(lease, g)
	if wait <= 0 || lease <= 0 || r == lease {
		return wait
	}
	return time.Duration(float64(wait) * float64(r) / float64(lease))
}
