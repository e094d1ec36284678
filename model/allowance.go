package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Allow is what a fault kind can do to a correct lease lock: the smallest
// set of anomalies it implies. Everything else that goes wrong around the
// fault is beyond it (CheckAllowance).
type Allow string

const (
	// AllowNone: the fault implies no anomaly at all (a correct lock rides
	// it out: requests are only delayed, and by less than a renewal gap).
	AllowNone Allow = "none"
	// AllowSuspend: the fault delays every request of the processes it hits
	// (Fault.Procs; all of them for a server-side fault) until it heals, the
	// watchdog's renewals among them. A renewed hold last renewed at r runs
	// out at r + lease; with renewals every lease/3, r is no earlier than
	// the fault's start minus lease/3, so the hold can run out only if the
	// fault lasts at least 2/3 of a lease, and then no earlier than start +
	// 2/3 lease. The holder may go on believing it holds until its first
	// answered call after the fault, which must learn the loss.
	AllowSuspend Allow = "suspend"
	// AllowDrop: as AllowSuspend, but requests in flight are lost (a reset
	// connection, a reconnect), and so may be the requests of the client's
	// next Options.Reconnect, which may meet connections it has not yet
	// found closed; a failed renewal is retried one renewal period later.
	// So the hold can run out once the fault and the reconnection together
	// last 1/3 of a lease (with the default reconnection and a lease up to
	// 3 s: any drop), no earlier than start + 2/3 lease, and its holder
	// learns the loss from end + reconnection + 1/3 lease on.
	AllowDrop Allow = "drop"
	// AllowLoss: the server may forget every hold granted before the fault
	// ended (a restart without persistence, an asynchronous failover);
	// from its start another process may be granted, and each old holder
	// may believe it holds until its first answered call after the fault.
	// A clock fault that names how far it moves the server's clock forward
	// (a jump j, or a drift of k s/s over its window: k × the window)
	// forgets only a hold whose remaining lease falls below that while the
	// clock is ahead (faultLapse).
	AllowLoss Allow = "loss"
	// AllowSplit: a split brain. The old master comes back as a second
	// writable copy of every lock and serves the clients still pinned to
	// it until a Sentinel demotes it, some time after the fault's window
	// ends (Options.SplitBrainBound): from its start until then any hold
	// may coexist with another, and each copy answers its own holders'
	// releases.
	AllowSplit Allow = "split"
)

// FaultAllowance is one fault kind's allowance, with the reason it is no
// larger and no smaller.
type FaultAllowance struct {
	// Names are the fault names (Fault.Name) of the kind.
	Names []string
	// Allow is what the kind may do to a correct lock.
	Allow Allow
	// Why says why, with the source of any bound.
	Why string
}

// FaultAllowances is the allowance of every fault kind lockcheck records.
// A name in Options.LossyFaults is AllowLoss whatever its entry says. A
// fault name listed nowhere is an error: the fault-allowance checker
// judges the anomalies around it as if it were AllowLoss (an unknown
// fault may do anything to the server's state), so what it finds beyond
// that is real, but it never calls such a history valid (CheckBeyond).
// docs/checking.md renders this table.
var FaultAllowances = []FaultAllowance{
	{[]string{"proxy-latency"}, AllowNone,
		"replies are slowed by far less than 2/3 of a lease (the catalog adds ≤ 400 ms to a 1.5 s lease): every renewal still lands in time"},
	{[]string{"refuse-once"}, AllowNone,
		"Redis refuses one command of one client with an error reply and runs nothing: a refused renewal leaves the hold at least 2/3 of a lease, and the watchdog's next tick, lease/3 later, renews it; a refused acquire or release is an error (outcome unknown) like any other"},
	{[]string{"refuse-subscribe"}, AllowNone,
		"Redis refuses one SUBSCRIBE of one client with an error reply: no hold changes; a waiter that meant to hear of a release that way may miss it only while the fault lasts, and its client must subscribe again"},
	{[]string{"slow-subscribe"}, AllowNone,
		"one subscription of one client is confirmed late, and the messages on its connection with it: no hold changes, and no lock command waits; a waiter may hear of a release late only while the fault lasts (its window lasts until the held frames are let through)"},
	{[]string{"clock-skew"}, AllowNone,
		"skewed client clocks only shift the clients' own deadlines, never a key's TTL on the server"},
	{[]string{"client-stall", "process-pause", "hiccup"}, AllowSuspend,
		"the holder (or, for a harness hiccup, every process) sends nothing until it heals, its watchdog included, and then sends what it held back"},
	{[]string{"redis-pause", "redis-debug-sleep", "redis-client-pause-write", "redis-client-pause-all", "client-pause", "debug-sleep"}, AllowSuspend,
		"the server answers nobody until it heals, then serves the queued requests; keys expire by wall time, so holds last renewed more than a lease before the end run out (Redis EXPIRE docs: expiry is checked on access and by the active cycle)"},
	{[]string{"proxy-blackhole", "proxy-reset", "proxy-down", "reconnect", "redis-client-kill-normal", "redis-client-kill-pubsub", "client-kill-normal", "client-kill-pubsub", "client-conn-kill", "slow-reply"}, AllowDrop,
		"requests in flight are lost with the connection (a black hole drops every byte and heals by resetting the connections: faults.BlackHole); the watchdog retries at its next tick (Redisson renews every lockWatchdogTimeout/3), and that retry may fail too while the client finds and replaces the connections the fault closed (Options.Reconnect). A reply held past the client's timeout (slow-reply, whose window lasts until the reply is let through) is lost to the client the same way, and a client that waits for it learns of a grant or a renewal a lease late"},
	{[]string{"client-interrupt"}, AllowNone,
		"an interrupted lock or tryLock either was granted (and says so) or left nothing behind (java.util.concurrent.locks.Lock: lockInterruptibly and tryLock acquire nothing when they throw InterruptedException; impl.Locker: a cancelled acquire returns ErrNotObtained and leaves nothing in Redis); an interrupted unlock may be unknown, and its process is retired"},
	{[]string{"client-crash"}, AllowNone,
		"a crashed holder asks nothing more (its process is retired); its hold must run out within one lease of the crash (the lease bound)"},
	{[]string{"redis-kill", "redis-restart-empty", "sentinel-kill-master", "sentinel-failover", "cluster-kill-master", "cluster-failover"}, AllowLoss,
		"a restart without persistence forgets every key; Sentinel and Cluster replicate asynchronously, so a promoted replica may lack the newest grants (Redis replication docs; Kleppmann, 'How to do distributed locking', 2016). A redis-kill with appendfsync always loses nothing (Redis persistence docs): a scenario whose LossyFaults leaves it out gets no allowance"},
	{[]string{"sentinel-pause-master"}, AllowSplit,
		"a master paused past down-after is replaced, then thaws as a second writable master until a Sentinel demotes it (about 10 s later, after the window ends; Options.SplitBrainBound): two copies of every lock (Redis Sentinel docs, 'Consistency under partitions')"},
	{[]string{"nft-partition", "nft-cut"}, AllowSplit,
		"packets dropped silently between hosts (faults.Firewall: nftables rules, no reset; the catalog uses them only inside other faults' windows, between Redis servers): a master cut from its replicas and Sentinels is replaced while it still serves the clients that reach it, two writable copies until a Sentinel demotes it (Redis Sentinel docs, 'Consistency under partitions'); between a client and Redis, requests are lost as in a black hole"},
	{[]string{"clock-jump", "clock-strobe"}, AllowLoss,
		"a server clock moved forward by j expires every hold with less than j left while it is ahead (an explicit lease: its grant + lease − j); a renewed hold keeps at least 2/3 of a lease, so a smaller jump implies nothing for it; a jump backward implies nothing (keys outlive their TTL: a liveness matter) (Redis expiry is wall-clock based; Kleppmann 2016 on timing assumptions)"},
	{[]string{"clock-drift"}, AllowLoss,
		"a server clock running fast by k s/s gains k × the window on the holds' leases (k × a renewal period on a renewed hold's); the Redlock analysis allows for drift of 1% only (redis.io, 'Distributed Locks with Redis': validity = TTL − elapsed − (TTL × 0.01 + 2 ms))"},
}

// allowOf returns the allowance of fault f, as FaultAllowances lists it:
// AllowLoss (AllowSplit for a split brain) for the faults
// Options.LossyFaults names, AllowNone for a fault lossy by default that
// the run's persistence makes safe (a kill with appendfsync always), and
// AllowNone for a backward clock jump. A fault listed nowhere is AllowLoss
// (an unknown fault may do anything to the server's state); CheckBeyond
// reports it (unknownFaults).
func (o Options) allowOf(f Fault) Allow {
	listed, ok := listedAllow(f.Name)
	if !ok {
		listed = AllowLoss
	}
	switch {
	case listed == AllowSplit && o.lossy(f.Name):
		return AllowSplit
	case o.lossy(f.Name):
		return AllowLoss
	case slices.Contains(DefaultLossyFaults, f.Name):
		return AllowNone
	case f.Name == "clock-jump" && f.jump() < 0:
		return AllowNone
	}
	return listed
}

// listedAllow is the allowance FaultAllowances lists for the fault called
// name, if it lists one.
func listedAllow(name string) (Allow, bool) {
	for _, a := range FaultAllowances {
		if slices.Contains(a.Names, name) {
			return a.Allow, true
		}
	}
	return "", false
}

// errUnknownFault marks a fault name that neither FaultAllowances nor
// Options.LossyFaults lists: what it may do to a correct lock is unknown.
var errUnknownFault = errors.New("fault kind not in model.FaultAllowances")

// unknownFaults returns an error wrapping errUnknownFault that names, once
// each in the order they first occur, the faults of faults whose names
// neither FaultAllowances nor o.LossyFaults lists; nil when there are none.
func (o Options) unknownFaults(faults []Fault) error {
	var names []string
	for _, f := range faults {
		if _, ok := listedAllow(f.Name); ok || o.lossy(f.Name) || slices.Contains(names, f.Name) {
			continue
		}
		names = append(names, f.Name)
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %q", errUnknownFault, names)
}

// jump is how far a clock fault moves a clock forward (its largest forward
// step, from the signed durations in its target: "+3s", "-250ms/+250ms");
// 0 when the target names none.
func (f Fault) jump() time.Duration {
	var lo, hi time.Duration
	found := false
	for _, field := range strings.Fields(f.Target) {
		for _, part := range strings.Split(field, "/") {
			if !strings.HasPrefix(part, "+") && !strings.HasPrefix(part, "-") {
				continue
			}
			if d, err := time.ParseDuration(part); err == nil {
				lo, hi, found = min(lo, d), max(hi, d), true
			}
		}
	}
	switch {
	case !found:
		return 0
	case hi > 0:
		return hi - lo
	}
	return lo
}

// fixedLease is the lease an acquire's hold runs out after unless renewed:
// its explicit lease, or the watchdog lease for a lock without a watchdog
// (0: a watchdog-renewed hold).
func (o Options) fixedLease(a *Op) int64 {
	switch {
	case a.Lease > 0:
		return a.Lease
	case o.NoWatchdog:
		return o.watchdogLease()
	}
	return 0
}

// clockSetBack is the largest step back of any clock fault in faults: a
// server clock set back by d makes every key outlive its TTL by up to d, so
// a retired process's hold may stand that much longer than its lease.
func clockSetBack(faults []Fault) int64 {
	var back int64
	for _, f := range faults {
		if strings.HasPrefix(f.Name, "clock-") {
			back = max(back, -int64(f.lowest()))
		}
	}
	return back
}

// lowest is a clock fault's largest step back (negative), from the signed
// durations in its target; 0 when it names none.
func (f Fault) lowest() time.Duration {
	var lo time.Duration
	for _, field := range strings.Fields(f.Target) {
		for _, part := range strings.Split(field, "/") {
			if d, err := time.ParseDuration(part); err == nil && strings.HasPrefix(part, "-") {
				lo = min(lo, d)
			}
		}
	}
	return lo
}

// hits reports whether f acts on process p: a fault with no Procs acts on
// every process (a server-side fault, or one whose target was not recorded).
func (f Fault) hits(p int) bool { return len(f.Procs) == 0 || slices.Contains(f.Procs, p) }

// driftSlack is the clock-drift margin on a lease of l ns: 1% plus 2 ms, the
// Redlock algorithm's CLOCK_DRIFT_FACTOR (redis.io, Distributed Locks with
// Redis), plus 10 ms of scheduling on a busy machine (the fixed part never
// more than 1/20 of the lease, for the short leases of hand-drawn histories).
func driftSlack(l int64) int64 { return l/100 + min(int64(12*time.Millisecond), l/20) }

// lapse is one way a hold could have ended without its holder's release:
// from earliest on (the server may have dropped it) and by learnAfter at the
// latest, so that the holder's first answered call on the lock that starts
// then or later must learn of it.
type lapse struct {
	earliest, learnAfter int64
	by                   string // what allows it, a fault window ("" for a lease: see allowedBy)
	loss                 bool   // the server lost state (a second copy may answer for the old holder)
	// copies: a second copy of the lock may answer the old holder's calls
	// after learnAfter too (a failover whose old master is demoted later,
	// failoverFaults).
	copies bool
	// drop: a drop fault allows it, which only failed the holder's
	// requests; a watchdog learns of the loss by trying again.
	drop bool
	// A hold's own explicit lease: p's lease of lease ns, from from.
	p           int
	lease, from int64
}

// allowedBy names what allows l: "p1's lease of 1s (from 2.5s)", or a
// fault window. A lease's name is rendered only when asked for: a long
// history has one lapse per acquire with a lease, and few are explained.
func (l lapse) allowedBy() string {
	if l.by == "" && l.lease > 0 {
		return fmt.Sprintf("p%d's lease of %s (from %s)", l.p, fmtDur(l.lease), fmtTime(l.from))
	}
	return l.by
}

// lapses lists the ways hold h could have ended before its release: its own
// explicit leases, the Expire ops that meet it, and every fault whose allowance covers
// it. why collects, for the explanation, the faults that overlap the hold
// but allow it nothing.
func lapses(h *hold, faults []Fault, horizon int64, opts Options) (out []lapse, why []string) {
	return newFaultSet(faults, horizon, opts).lapses(h, opts)
}

// lapses is lapses with the windows indexed.
func (fs *faultSet) lapses(h *hold, opts Options) (out []lapse, why []string) {
	g := h.grant
	for _, a := range h.acquires() {
		if l := opts.fixedLease(a); l > 0 {
			from := max(a.Call, h.since())
			out = append(out, lapse{earliest: from + l - driftSlack(l), learnAfter: a.Return + l + driftSlack(l),
				p: g.Process, lease: l, from: from})
		}
	}
	for _, x := range h.expires {
		out = append(out, lapse{earliest: x.Call, learnAfter: x.Return, by: fmt.Sprintf("p%d's lease, let run out in [%s, %s]", g.Process, fmtTime(x.Call), fmtTime(x.Return))})
	}
	for _, i := range fs.meeting(h.since(), h.until()) {
		f := fs.faults[i]
		if !f.hits(g.Process) {
			continue
		}
		l, ok, reason := faultLapse(h, f, fs.ends[i], fs.allow[i], opts)
		if ok {
			out = append(out, l)
		} else if reason != "" {
			why = append(why, reason)
		}
	}
	return out, why
}

// faultLapse is the lapse fault f (ending at e, allowing a) allows hold h,
// or why none. A split brain's e is its demotion (faultSet): until then
// the old master's copy may answer the holder's calls.
func faultLapse(h *hold, f Fault, e int64, a Allow, opts Options) (lapse, bool, string) {
	switch a {
	case AllowSuspend, AllowDrop:
		return suspendLapse(h, f, e, a, opts)
	case AllowSplit:
		return lapse{earliest: f.Start, learnAfter: e, by: f.String(), loss: true}, true, ""
	case AllowLoss:
		switch {
		case h.since() > e:
			return lapse{}, false, ""
		case strings.HasPrefix(f.Name, "clock-"):
			return clockLapse(h, f, e, opts)
		}
		return lapse{earliest: f.Start, learnAfter: e, by: f.String(), loss: true, copies: mayLeaveCopy(f.Name)}, true, ""
	}
	return lapse{}, false, fmt.Sprintf("%s allows a correct lock nothing", f)
}

// suspendLapse is faultLapse for a fault that delays (AllowSuspend) or
// drops (AllowDrop) the requests of h's process.
func suspendLapse(h *hold, f Fault, e int64, a Allow, opts Options) (lapse, bool, string) {
	g := h.grant
	w := opts.watchdogLease()
	lease := g.Lease
	if lease <= 0 {
		lease = w
	}
	slack := driftSlack(lease)
	if opts.fixedLease(g) > 0 {
		return lapse{}, false, "" // its lease is listed already
	}
	need, after := w*2/3, int64(0) // after: how long past e requests still fail
	if a == AllowDrop {
		need, after = w/3, opts.reconnectAfter(g.Process, f.Start, e)
	}
	if e+after-f.Start < need-slack {
		with := ""
		if after > 0 {
			with = fmt.Sprintf(" with the client's reconnection (%s)", fmtDur(after))
		}
		return lapse{}, false, fmt.Sprintf("%s lasted %s%s, less than the %s a watchdog hold (lease %s) needs to run out", f, fmtDur(e+after-f.Start), with, fmtDur(need), fmtDur(w))
	}
	at := max(h.since()+w, renewedBy(g, f.Start, w, opts)+w) - slack
	learn := e + slack
	if a == AllowDrop {
		learn += after + w/3
	}
	return lapse{earliest: at, learnAfter: learn, by: f.String(), drop: a == AllowDrop}, true, ""
}

// renewedBy is when g's hold was last renewed before start, at the
// latest: a watchdog renews every third of a lease, so start - w/3, unless
// the wire trace shows the holder's client sent nothing on the lock that
// was answered since an earlier time (a renewal that came late, or was
// lost with its connection). The trace only ever moves it earlier.
func renewedBy(g *Op, start, w int64, opts Options) int64 {
	by := start - w/3
	if opts.Wire != nil {
		if last, ok := opts.Wire.lastAnswered(g.Process, g.Lock, start); ok {
			by = min(by, last)
		}
	}
	return by
}

// failoverFaults are the loss faults after which the old master may still
// hold a copy of the locks for a while: a Sentinel or Cluster failover
// leaves the old master writable until it is reconfigured as a replica,
// which the run does not record. A holder's release answered ok after
// such a fault may have met that copy.
var failoverFaults = []string{"sentinel-kill-master", "sentinel-failover", "cluster-kill-master", "cluster-failover"}

// mayLeaveCopy reports whether the loss fault called name may leave a
// second copy of the locks that answers their old holders (failoverFaults).
func mayLeaveCopy(name string) bool { return slices.Contains(failoverFaults, name) }

// DefaultSplitBrainBound is Options.SplitBrainBound's default: how long
// after a split brain's window ends (sentinel-pause-master: the old master
// thawed) it may still serve as a second master. A Sentinel converts an
// instance it knows as a replica that reports itself master only once it
// has reported so for more than SENTINEL_PUBLISH_PERIOD × 4 (8 s) and has
// not been down for as long (redis sentinel.c,
// sentinelRefreshInstanceInfo, "+convert-to-slave"), and it learns the
// role from INFO, sent to replicas every SENTINEL_INFO_PERIOD (10 s): the
// thawed master is seen as one up to 10 s after the thaw and converted at
// the first INFO more than 8 s later, up to 20 s after it, plus a
// down-after (1 s, faults.SentinelConfig's default) for the Sentinels to
// see it up again. faults.PauseMaster measured about 10 s on Redis 7.0.
// down-after + failover-timeout (4 s with faults.SentinelConfig's
// defaults) would be shorter than the 8 s the Sentinel waits at least.
const DefaultSplitBrainBound = 21 * time.Second

// splitEnd is when the second master of a split brain whose window ends at
// end (the horizon when it never healed) is demoted at the latest: the
// demotion the history records, which it never does today, so
// Options.SplitBrainBound after end, within the horizon.
func (o Options) splitEnd(end, horizon int64) int64 {
	b := int64(DefaultSplitBrainBound)
	if o.SplitBrainBound > 0 {
		b = int64(o.SplitBrainBound)
	}
	if end > horizon-b {
		return max(end, horizon) // never before the window's recorded end
	}
	return end + b
}
