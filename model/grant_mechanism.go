package model

import (
	"cmp"
	"slices"
)

// grantMechanisms sets the mechanism of every double grant among the
// examples of results that has none (doubleGrantMechanism). A mechanism
// narrows a signature; it never changes a verdict.
func grantMechanisms(results []Result, opts Options) {
	for i := range results {
		for j := range results[i].Examples {
			ex := &results[i].Examples[j]
			if ex.Shape == ShapeDoubleGrant && ex.Mechanism == "" {
				ex.Mechanism = doubleGrantMechanism(ex.Ops, opts)
			}
		}
	}
}

// doubleGrantMechanism says how the first of two holds believed at once
// came to end, from its grant and the second's among ops, against the
// first's lease (its explicit lease, or the watchdog's lease as if never
// renewed):
//
//   - MechanismCutShort: the second was granted (by its return) before
//     the first's lease could have run out (no earlier than its call plus
//     the lease): its key was deleted or its expiry shortened under it, no
//     lapse of a lease;
//   - MechanismLapsed: the second was granted (from its call) after the
//     first's lease could have run out, unrenewed, from its grant's
//     return: a lapse its holder was not told of (a watchdog that stopped
//     renewing, or never did).
//
// "" when ops do not hold two grants of different processes, one surely
// before the other, or when the second's grant straddles the end of the
// first's lease.
func doubleGrantMechanism(ops []Op, opts Options) string {
	a, b, ok := grantPair(ops)
	if !ok {
		return ""
	}
	lease := a.Lease
	if lease <= 0 {
		lease = opts.watchdogLease()
	}
	switch {
	case b.Return < a.Call+lease:
		return MechanismCutShort
	case b.Call >= a.Return+lease:
		return MechanismLapsed
	}
	return ""
}

// grantPair returns the earliest grant (an acquire answered ok) among ops
// and the earliest one of another process after it; ok is false when
// there is none, or when the first had not surely taken effect (returned)
// before the second was asked for.
func grantPair(ops []Op) (first, second Op, ok bool) {
	var grants []Op
	for _, o := range ops {
		if o.Kind == Acquire && o.Outcome == OK {
			grants = append(grants, o)
		}
	}
	slices.SortStableFunc(grants, func(x, y Op) int { return cmp.Compare(x.Call, y.Call) })
	for _, g := range grants[min(1, len(grants)):] {
		if g.Process != grants[0].Process {
			return grants[0], g, grants[0].Return <= g.Call
		}
	}
	return Op{}, Op{}, false
}
