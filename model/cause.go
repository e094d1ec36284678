package model

import (
	"fmt"
	"slices"
	"strings"
)

// DefaultLossyFaults are the fault names (faults.Fault.Name, as recorded in
// Fault.Name) after which a Redis server may have forgotten the locks it
// held: a kill and restart (empty without persistence), and every failover
// (replication is asynchronous, so a promoted replica may lack the newest
// grants). Options.LossyFaults replaces this list.
var DefaultLossyFaults = []string{
	"redis-kill",            // faults.KillRestart: SIGKILL, restart on the same data dir
	"redis-restart-empty",   // faults.RestartEmpty: restart without persistence
	"sentinel-kill-master",  // master killed, Sentinel promotes a replica
	"sentinel-pause-master", // a pause past down-after fails over (and splits the brain)
	"sentinel-failover",     // SENTINEL FAILOVER
	"cluster-kill-master",   // master killed, the cluster promotes a replica
	"cluster-failover",      // CLUSTER FAILOVER (FORCE/TAKEOVER skip the sync)
}

// lossy reports whether a window named name may have lost the server's data.
func (o Options) lossy(name string) bool {
	if o.LossyFaults != nil {
		return slices.Contains(o.LossyFaults, name)
	}
	return slices.Contains(DefaultLossyFaults, name)
}

// holdEnd is one answer to "could first's hold have ended before second was
// granted?", with first granted no earlier than its call and second no later
// than its effective deadline.
type holdEnd struct {
	first, second *Op
	lost          *Fault // a lossy window between the two grants, if any
	lease         bool   // first's lease could have run out
	how           string // what was found, without the verdict
	faulted       bool   // some fault overlapped the ops
	allowedBy     string // the fault or lease whose allowance covers the pair ("": none)
	beyond        string // why no fault's allowance covers it, when some fault overlapped
}

// ended reports whether the hold could have ended before the second grant.
func (e holdEnd) ended() bool { return e.lost != nil || e.lease }

// verdict renders e with what it means.
func (e holdEnd) verdict() string {
	switch {
	case e.lease && !e.faulted && e.lost == nil:
		return e.how + " with no fault recorded: the holder kept the lock longer than its lease"
	case e.allowedBy != "":
		return e.how + ": allowed by " + e.allowedBy + ", as it allows any lease lock"
	case e.lost != nil || e.lease:
		return e.how + ", but beyond the faults' allowance: " + e.beyond
	default:
		return e.how + ": an implementation bug"
	}
}

// holdCouldEnd says whether the hold granted by first could have ended
// before second took effect: lost with the server's data during a lossy
// fault window placed between the two grants, or run out (its lease): an
// explicit lease by its length, a watchdog-renewed hold only if a fault
// window that overlaps the hold lasts long enough for renewals to lapse.
// Windows that end before first's call or start after second's deadline
// are never blamed. faults are the windows overlapping the ops; horizon
// ends open windows.
func holdCouldEnd(first, second *Op, faults []Fault, horizon int64, opts Options) holdEnd {
	e := holdCouldEndAtAll(first, second, faults, horizon, opts)
	if e.ended() {
		e.allowedBy, e.beyond = allowance(first, second.effectiveDeadline(), faults, horizon, opts)
	}
	return e
}

// holdCouldEndAtAll is holdCouldEnd without the faults' allowances: could
// the hold have ended at all, whatever the fault.
func holdCouldEndAtAll(first, second *Op, faults []Fault, horizon int64, opts Options) holdEnd {
	latest := second.effectiveDeadline() // second took effect by then
	e := holdEnd{first: first, second: second}
	for _, f := range faults {
		// Only a window that overlaps the hold before second's grant can
		// have ended it.
		e.faulted = e.faulted || (f.Start <= latest && f.end(horizon) >= first.Call)
	}
	for i, f := range faults {
		// The loss must come after first's grant (no earlier than its call)
		// and before second's (no later than its deadline).
		if opts.lossy(f.Name) && max(first.Call, f.Start) <= min(f.end(horizon), latest) {
			e.lost = &faults[i]
			e.how = fmt.Sprintf("p%d's hold may have been lost with the server's state during %s", first.Process, f)
			return e
		}
	}
	if first.Lease > 0 {
		e.lease = first.Call+first.Lease <= latest
		e.how = fmt.Sprintf("p%d's explicit lease of %s (granted no earlier than %s) ", first.Process, fmtDur(first.Lease), fmtTime(first.Call))
	} else {
		w := opts.watchdogLease()
		e.how = fmt.Sprintf("p%d's watchdog-renewed hold (lease %s) ", first.Process, fmtDur(w))
		for _, f := range faults {
			// Renewals stop only while the fault lasts: the hold runs out
			// no earlier than 2/3 of a lease after the window (or the
			// grant) starts, and only if the window lasts that long.
			if min(f.end(horizon), latest)-max(f.Start, first.Call) >= w*2/3 {
				e.lease = true
				e.how += fmt.Sprintf("stopped being renewed during %s and ", f)
				break
			}
		}
		if !e.lease {
			e.lease = lapsedUnder(first, latest, faults, horizon, opts, &e.how)
		}
	}
	if e.lease {
		e.how += "could have run out by " + fmtTime(latest)
	} else {
		e.how += "could not have run out by " + fmtTime(latest)
	}
	return e
}

// lapsedUnder reports whether a fault's allowance lets the watchdog hold
// granted by first run out by latest though its window is shorter than
// the renewals' slack: a drop stretched by the client's reconnection as
// the wire trace recorded it, or by its reply timeout (lapses, the
// fault-allowance checker's rule: the two checkers explain one lapse
// alike). It says which in how.
func lapsedUnder(first *Op, latest int64, faults []Fault, horizon int64, opts Options, how *string) bool {
	ls, _ := lapses(&hold{grant: first, end: latest}, faults, horizon, opts)
	for _, l := range ls {
		if l.by != "" && l.earliest <= latest {
			*how += fmt.Sprintf("stopped being renewed under %s and ", l.by)
			return true
		}
	}
	return false
}

// allowance names what lets first's hold end by latest within a fault's
// (or its lease's) allowance, or says why nothing does.
func allowance(first *Op, latest int64, faults []Fault, horizon int64, opts Options) (by, why string) {
	ls, whys := lapses(&hold{grant: first, end: latest}, faults, horizon, opts)
	for _, l := range ls {
		if l.earliest <= latest {
			return l.allowedBy(), ""
		}
		whys = append(whys, fmt.Sprintf("%s lets the hold end no earlier than %s", l.allowedBy(), fmtTime(l.earliest)))
	}
	if len(whys) == 0 {
		return "", "no overlapping fault allows the hold to end"
	}
	return "", strings.Join(whys, "; ")
}

// tokensOrder reports whether the fencing tokens of two grants order them:
// both carry distinct tokens and no lossy window (which may reset the token
// counter) overlaps either grant or the time between them.
func tokensOrder(a, b *Op, faults []Fault, horizon int64, opts Options) bool {
	if a.Token == 0 || b.Token == 0 || a.Token == b.Token {
		return false
	}
	lo, hi := min(a.Call, b.Call), max(a.effectiveDeadline(), b.effectiveDeadline())
	for _, f := range faults {
		if opts.lossy(f.Name) && f.Start <= hi && f.end(horizon) >= lo {
			return false
		}
	}
	return true
}

// grantCause explains two grants of one lock to different live processes
// that cannot both hold it: a, the holder in the checker's partial order,
// and b, the grant it could not place after a. A grant can sit anywhere in
// its [call, deadline]; fencing tokens, when present and trustworthy, order
// the grants. Among the orders that allows, it prefers one in which the
// earlier hold could have ended (lease or lost data) before the later grant.
// It returns the earlier and later grant of the chosen order and the cause;
// the cause says "implementation bug" only when no allowed order explains
// the pair.
func grantCause(a, b *Op, faults []Fault, horizon int64, opts Options) (first, second *Op, e holdEnd, cause string) {
	byTokens := tokensOrder(a, b, faults, horizon, opts)
	allowed := func(x, y *Op) bool {
		if byTokens && x.Token > y.Token {
			return false
		}
		return x.Call < y.effectiveDeadline()
	}
	ab, ba := allowed(a, b), allowed(b, a)
	if !ab && !ba {
		// Tokens contradict the intervals (the fencing checker reports
		// that): fall back to the intervals alone.
		byTokens = false
		ab, ba = allowed(a, b), allowed(b, a)
	}
	eab, eba := holdCouldEnd(a, b, faults, horizon, opts), holdCouldEnd(b, a, faults, horizon, opts)
	order := ""
	if byTokens {
		order = fmt.Sprintf("tokens %d < %d order the grants: ", min(a.Token, b.Token), max(a.Token, b.Token))
	}
	switch {
	case ab && !ba:
		return a, b, eab, order + eab.verdict()
	case ba && !ab:
		return b, a, eba, order + eba.verdict()
	case eab.ended() && eba.ended():
		return a, b, eab, fmt.Sprintf("the order of p%d's and p%d's grants is ambiguous (their intervals overlap); with p%d's first, %s",
			a.Process, b.Process, a.Process, eab.verdict())
	case eba.ended():
		return b, a, eba, fmt.Sprintf("p%d's grant may have come first (the intervals overlap), and then %s", b.Process, eba.verdict())
	case eab.ended():
		return a, b, eab, fmt.Sprintf("p%d's grant may have come first (the intervals overlap), and then %s", a.Process, eab.verdict())
	default:
		return a, b, eab, fmt.Sprintf("in either order of the grants (their intervals overlap): %s; %s", eab.how, eba.verdict())
	}
}
