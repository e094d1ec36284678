package model

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Verdict is a checker's three-way answer.
type Verdict string

const (
	// Valid: no violation exists in the history.
	Valid Verdict = "valid"
	// Invalid: the history contains a violation (see the Examples).
	Invalid Verdict = "invalid"
	// Unknown: the checker could not decide (out of time, or the history is
	// malformed).
	Unknown Verdict = "unknown"
)

// Checker names, as used in Result.Checker.
const (
	CheckWellFormed      = "well-formed"
	CheckLinearizable    = "linearizable"
	CheckMutualExclusion = "mutual-exclusion"
	CheckFencing         = "fencing"
	CheckFairness        = "fairness"
	CheckLiveness        = "liveness"
	// CheckContract checks each call against the Locker contract's timing:
	// a TryLock answers within its wait plus a slack.
	CheckContract = "contract"
	// CheckAllowance checks every anomaly of the holds against what the
	// recorded faults allow a correct lease lock (CheckBeyond): Invalid
	// only for an anomaly beyond every fault's allowance.
	CheckAllowance = "fault-allowance"
	// CheckComplete is the result Check adds for a truncated history: it is
	// the prefix of a run that did not finish, so it is Unknown.
	CheckComplete = "complete"
	// CheckConserved checks a semaphore's grants against its total
	// permits (CheckPermitsConserved).
	CheckConserved = "permits-conserved"
)

// checkerAbbrevs are the checkers' short names for tables.
var checkerAbbrevs = map[string]string{
	CheckLinearizable: "lin", CheckMutualExclusion: "mutex", CheckFencing: "fence",
	CheckFairness: "fair", CheckLiveness: "live", CheckContract: "timing", CheckAllowance: "beyond",
	CheckConserved: "permits",
}

// Abbrev is a checker's short name for tables ("lin" for linearizable);
// a checker without one keeps its name.
func Abbrev(checker string) string {
	if a, ok := checkerAbbrevs[checker]; ok {
		return a
	}
	return checker
}

// Example is one concrete violation (or notable event) with the ops involved.
type Example struct {
	// Lock is the lock (or resource) concerned.
	Lock string `json:"lock"`
	// Summary says what went wrong, in one sentence.
	Summary string `json:"summary"`
	// Ops are the conflicting ops, earliest first.
	Ops []Op `json:"ops,omitempty"`
	// Faults are the fault windows that overlap the ops.
	Faults []Fault `json:"faults,omitempty"`
	// Cause is the explanation: which grant came first (as the op intervals
	// and fencing tokens allow), and whether that holder's hold could have
	// ended before the conflicting op took effect: lost with the server's
	// data during a lossy fault (Options.LossyFaults), or run out (its
	// lease); expected under the overlapping faults. Only when no allowed
	// order of the grants lets the first hold end does it say
	// "implementation bug". Empty when it does not apply.
	Cause string `json:"cause,omitempty"`
	// LeaseCouldExpire is true when the first holder's lease could have run
	// out before the conflicting op took effect.
	LeaseCouldExpire bool `json:"lease_could_expire,omitempty"`
	// HoldCouldBeLost is true when a lossy fault window (a server kill,
	// restart or failover) lies between the two grants: the first hold may
	// have been forgotten with the server's data.
	HoldCouldBeLost bool `json:"hold_could_be_lost,omitempty"`
	// Class says what the violation broke.
	Class Class `json:"class,omitempty"`
	// Shape is the violation's form, as its checker found it in the
	// history (see Shape and Signature).
	Shape Shape `json:"shape,omitempty"`
	// Mechanism, when set, says how the shape came about, as the run
	// recorded it (a Mechanism* value): a narrower signature than the
	// shape's alone.
	Mechanism string `json:"mechanism,omitempty"`
	// Beyond says the violation goes beyond what every overlapping fault
	// allows a correct lease lock (see FaultAllowances): a finding even on
	// a scenario whose fault breaks the lock by design.
	Beyond bool `json:"beyond,omitempty"`
	// AllowedBy names what allows the violation (a fault window, a lease)
	// when it is within a fault's allowance.
	AllowedBy string `json:"allowed_by,omitempty"`
}

// String renders the example over several lines.
func (e Example) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.Lock, e.Summary)
	if e.Class != "" {
		fmt.Fprintf(&b, " [%s]", e.Class)
	}
	b.WriteString("\n")
	for _, o := range e.Ops {
		fmt.Fprintf(&b, "  op    %v\n", o)
	}
	for _, f := range e.Faults {
		fmt.Fprintf(&b, "  fault %v\n", f)
	}
	if e.Cause != "" {
		fmt.Fprintf(&b, "  cause %s\n", e.Cause)
	}
	return b.String()
}

// Result is one checker's verdict on a history.
type Result struct {
	Checker string  `json:"checker"`
	Verdict Verdict `json:"verdict"`
	// Class is, for an Invalid result, what its worst violation broke.
	Class Class `json:"class,omitempty"`
	// Explanation is a human-readable paragraph: what was checked and what
	// was found.
	Explanation string `json:"explanation"`
	// Examples are concrete violations (at most Options.MaxExamples; the
	// fault-allowance checker adds the first of each further signature).
	Examples []Example `json:"examples,omitempty"`
	// Count is the number of violations found (may exceed len(Examples)).
	Count int `json:"count,omitempty"`
	// Allowed is, for the fault-allowance checker, what allowed the
	// anomalies it allowed: each fault window or lease with how many,
	// most first ("proxy-blackhole c0 [0.5s, 3.5s] (×2)"). It is the
	// evidence that a break within the faults is one they allow.
	Allowed []string `json:"allowed,omitempty"`
	// Elapsed is how long the checker ran.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// String renders the result for a terminal.
func (r Result) String() string {
	var b strings.Builder
	v := string(r.Verdict)
	if r.Class != "" {
		v += " (" + string(r.Class) + ")"
	}
	fmt.Fprintf(&b, "%-16s %-7s %s\n", r.Checker, v, r.Explanation)
	for _, e := range r.Examples {
		for _, l := range strings.Split(strings.TrimRight(e.String(), "\n"), "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
	return b.String()
}

// Report is the combined verdict of every applicable checker.
type Report struct {
	// Verdict is Invalid if any checker says Invalid, else Unknown if any
	// says Unknown, else Valid.
	Verdict Verdict  `json:"verdict"`
	Results []Result `json:"results"`
	// Truncated repeats History.Truncated: the run crashed mid-write, and
	// the history is a prefix of a run that did not finish. Such a report
	// has a CheckComplete result that is Unknown, so its Verdict is never
	// Valid: Invalid when the prefix holds a violation, else Unknown.
	Truncated *Truncation `json:"truncated,omitempty"`
	// Unfinished says why the history is not that of a whole run
	// (History.Unfinished; "" when it is).
	Unfinished string `json:"unfinished,omitempty"`
	// Stopped says why the check itself stopped before it decided
	// ("interrupted", "timed out after 1m0s"; "" when it ran to the end):
	// the checkers it cut short are Unknown.
	Stopped string `json:"stopped,omitempty"`
}

// Incomplete reports whether the checked history is the prefix of a run
// that did not finish.
func (r Report) Incomplete() bool { return r.Truncated != nil || r.Unfinished != "" }

// String renders every result.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict: %s\n", r.Verdict)
	if r.Unfinished != "" {
		fmt.Fprintf(&b, "incomplete: the history is a prefix of a run that did not finish (%s)\n", r.Unfinished)
	}
	for _, res := range r.Results {
		b.WriteString(res.String())
	}
	return b.String()
}

// Result returns the named checker's result, if it ran.
func (r Report) Result(checker string) (Result, bool) {
	for _, res := range r.Results {
		if res.Checker == checker {
			return res, true
		}
	}
	return Result{}, false
}

// Options tune the checkers. The zero value is usable.
type Options struct {
	// Timeout bounds the whole check: every checker and its explanations
	// (0: 60 s). When it runs out the verdict is Unknown, never a hang.
	Timeout time.Duration
	// WatchdogLease is the lease of holds acquired with Lease <= 0
	// (0: 30 s, Redisson's lockWatchdogTimeout).
	WatchdogLease time.Duration
	// NoWatchdog says the lock does not renew holds acquired with Lease <=
	// 0: each is a fixed lease of WatchdogLease, which may run out with no
	// fault (the fault-allowance checker's lease allowance).
	NoWatchdog bool
	// Fair says the lock is FIFO: a fail acquire while another request was in
	// flight is legal even if the lock was free (the other request may have
	// been ahead in the queue), and the fairness checker runs. Fairness also
	// runs when any acquire records Enqueued.
	Fair bool
	// MaxExamples caps Result.Examples (0: 5).
	MaxExamples int
	// Reconnect is how long after a drop fault (a reset, a black hole, a
	// killed connection) heals a client may still fail its requests while
	// it finds and replaces the connections the fault closed (0:
	// DefaultReconnect; < 0: none, a client that recovers at once). A run
	// with a wire trace (Wire) takes each reconnection from it instead.
	Reconnect time.Duration
	// Wire, if set, is the run's wire trace: a drop fault's reconnection
	// for a process lasts until its client had its connections back, as
	// recorded (WireTrace.Reconnected), not Reconnect; the fault-allowance
	// checker also finds the watchdog holds whose client went silent on the
	// lock (renewalGaps) and quotes the commands in its explanations.
	Wire *WireTrace `json:"-"`
	// ReplyTimeout is how long a client may wait on a request whose
	// connection closed under it before it learns the request is lost: its
	// command timeout, for a client that waits that out on a closed
	// connection (Redisson's RedisResponseTimeoutException), 0 for one
	// whose closed connection fails its requests at once (go-redis). With
	// a wire trace that shows a request of the process lost in flight in a
	// drop fault (WireTrace.LostInFlight), the fault's reconnection lasts
	// at least until then.
	ReplyTimeout time.Duration
	// LossyFaults names the fault windows (Fault.Name) during which a
	// server may lose the locks it holds: a kill or restart without
	// persistence, a failover with asynchronous replication. A conflicting
	// grant after such a window is explained as expected, not as a bug.
	// nil means DefaultLossyFaults; a non-nil empty slice means no fault
	// loses data (e.g. every server persists with appendfsync always).
	LossyFaults []string
	// MaxSegmentOps bounds the ops of one segment (a stretch of one lock's
	// history without a quiet point) that porcupine is given (0: 131072;
	// < 0: no bound). porcupine remembers each configuration it visits
	// with a bitmap of the segment's ops, so a segment of n ops may take up
	// to about n*n/8 bytes (2 GiB at the default; measured here, a 60k-op
	// segment with 2% info ops allocated 640 MB, a 1.24M-op one took 13 GB),
	// while a 30 s contended run (about 60k ops in one segment) must stay
	// decidable. A larger segment is not checked and makes the verdict
	// Unknown, saying so.
	MaxSegmentOps int
	// MaxWait bounds waits for the liveness checker (CheckLive; see
	// WaitBound): the zero value derives it from the leases.
	MaxWait WaitBound
	// FreeWait, > 0, also bounds each acquire's longest continuous stretch
	// of waiting on a free lock (no other process may have held it, no
	// fault window open): a waiter that missed its wake-up and sits on a
	// lock nobody holds. Unlike the derived bound it does not add up the
	// hand-off gaps of a long wait, so it can be far shorter than a lease.
	FreeWait time.Duration
	// OpTimeout, > 0, is how long an op may last (the workload's op
	// timeout): the derived liveness bound is kept below it, so that a
	// waiter that sits out a whole op on a free lock is seen; when a lease
	// leaves no room below it, the explanation says the lock's waits are
	// not bounded.
	OpTimeout time.Duration
	// SplitVotes says the lock is a quorum of nodes (RedLock): a failed
	// acquire while another process's acquire was in flight is legal even
	// on a free lock, as for a fair lock (the votes may have split).
	SplitVotes bool
	// AttemptsHold says an acquire's failed attempt may hold the lock for a
	// moment and give it back within one call (the RedLock algorithm on
	// one node: redsync releases an attempt whose reply came too late, and
	// tries again): a failed acquire while another process's acquire was in
	// flight is legal even on a free lock, as for SplitVotes, whose other
	// allowances it does not have.
	AttemptsHold bool
	// QueueTimeout is a fair lock's claim of how long a queued waiter
	// whose process died keeps its place (Redisson's fairLockWaitTimeout,
	// 5 min by default): the waiters queued behind it may wait that long,
	// on a free lock, for its turn to pass (0: no such claim).
	QueueTimeout time.Duration
	// WaitSpent says a TryLock may be refused once its wait is spent,
	// whatever the lock's state: Redisson's MultiLock and RedLock spend
	// the wait across their members and give up when it runs out, even on
	// members that were free or their own (a re-entry). A refused TryLock
	// with a wait that lasted its wait (at least 1 ms: drivers round up)
	// less WaitSpentSlack then claims nothing, as a cancelled one.
	WaitSpent bool
	// SplitWait, > 0, is how long a quorum of member locks taken one by
	// one (Redisson's RedLock) may wait on a free lock while attempts that
	// took different members wait out each other's share of the wait: it
	// is added to FreeWait's bound (liveness_votes.go).
	SplitWait time.Duration
	// TTLWakeups says the lock's waiters may miss an unlock message and
	// wait out the TTL they last saw (Redisson's documented bound): the
	// liveness checker then bounds each stretch of waiting on a free lock
	// by the lock's longest lease plus FreeWait (or TTLWakeupSlack when
	// FreeWait is 0), instead of the prompt bounds.
	TTLWakeups bool
	// PermitGranularity is the granularity of the instants a permit
	// semaphore's scripts compare (0: PermitClockGranularity, Redisson's
	// truncated milliseconds; < 0: exact): lease windows widen by it.
	PermitGranularity time.Duration
	// TryLockSlack is how far past its wait (plus a quarter of it) a
	// TryLock outside faults may answer (CheckTiming; 0:
	// DefaultTryLockSlack; < 0: not checked).
	TryLockSlack time.Duration
	// SplitBrainBound is how long after a split brain's window ends (the
	// old master thawed) its second copy of every lock may still answer
	// its clients, until a Sentinel demotes it: the fault-allowance
	// checker allows two holders, and a holder's calls answered as if its
	// hold stood, only until then (0: DefaultSplitBrainBound, from
	// Sentinel's own timers; a history records no demotion).
	SplitBrainBound time.Duration
}

func (o Options) watchdogLease() int64 {
	if o.WatchdogLease > 0 {
		return int64(o.WatchdogLease)
	}
	return int64(30 * time.Second)
}

// DefaultReconnect is Options.Reconnect's default: a pooled connection is
// found closed only when used, so the first requests after a reset may meet
// closed connections; Redisson 3.52.0 handed a renewal one that CLIENT KILL
// had closed 0.62 s before (impl/drivers/redisson-java/repro/conn-kill-renewal.sh).
const DefaultReconnect = time.Second

// reconnectAfter is how long after a drop fault over [start, end] process
// p's requests may still fail: until its client had its connections back,
// as the wire trace recorded (WireTrace.Reconnected), and, for a request
// it recorded lost in flight, until the client's ReplyTimeout gave it up;
// else reconnect().
func (o Options) reconnectAfter(p int, start, end int64) int64 {
	if o.Wire != nil {
		if at, ok := o.Wire.Reconnected(p, start, end); ok {
			// A connection closed before the client was back was the fault's.
			if lost, ok := o.Wire.LostInFlight(p, start, at); ok && o.ReplyTimeout > 0 {
				at = max(at, lost+int64(o.ReplyTimeout))
			}
			return at - end
		}
	}
	return o.reconnect()
}

func (o Options) reconnect() int64 {
	switch {
	case o.Reconnect < 0:
		return 0
	case o.Reconnect > 0:
		return int64(o.Reconnect)
	}
	return int64(DefaultReconnect)
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 60 * time.Second
}

func (o Options) maxSegmentOps() int {
	switch {
	case o.MaxSegmentOps > 0:
		return o.MaxSegmentOps
	case o.MaxSegmentOps < 0:
		return 0
	}
	return 1 << 17
}

func (o Options) maxExamples() int {
	if o.MaxExamples > 0 {
		return o.MaxExamples
	}
	return 5
}

// fair reports whether h is a fair-lock history.
func (o Options) fair(h *History) bool {
	if o.Fair {
		return true
	}
	for i := range h.Ops {
		if h.Ops[i].Enqueued != 0 {
			return true
		}
	}
	return false
}

// Check runs every applicable checker on h and combines their verdicts.
// Linearizability and liveness always run; mutual exclusion and fencing run
// when h has Section ops (fencing also when grants carry tokens); fairness
// runs for fair locks. A truncated history (History.Truncated) gets a
// CheckComplete result that is Unknown. A malformed history (see History.Validate), or one
// without ops (it decided nothing), yields a single Unknown result naming
// the problem. A history in which no acquire was granted gets a
// CheckWellFormed result that is Unknown besides the checkers' results: it
// exercised nothing, so its verdict is never Valid (a violation in it, such
// as a free lock refused, is still Invalid).
func Check(h *History, opts Options) Report {
	return CheckContext(context.Background(), h, opts)
}

// CheckContext is Check that stops when ctx ends: the checkers it cuts
// short are Unknown (a violation found before is still Invalid) and
// Report.Stopped says why. Options.Timeout bounds it as a whole.
func CheckContext(ctx context.Context, h *History, opts Options) Report {
	ctx, cancel := withTimeout(ctx, opts)
	defer cancel()
	rep := Report{Truncated: h.Truncated, Unfinished: h.Unfinished()}
	if err := h.Validate(); err != nil {
		rep.Results = []Result{{Checker: CheckWellFormed, Verdict: Unknown, Explanation: "malformed history (a harness bug): " + err.Error()}}
		rep.Verdict = Unknown
		return rep
	}
	if len(h.Ops) == 0 {
		rep.Results = []Result{{Checker: CheckWellFormed, Verdict: Unknown, Explanation: "the history has no ops: it decided nothing"}}
		rep.Verdict = Unknown
		return rep
	}
	if opts.fair(h) {
		opts.Fair = true
	}
	rep.Results = runCheckers(ctx, h, opts)
	grantMechanisms(rep.Results, opts)
	for i := range rep.Results {
		rep.Results[i].classify()
	}
	rep.Stopped = stopReason(ctx, opts)
	if !granted(h) {
		rep.Results = append(rep.Results, Result{Checker: CheckWellFormed, Verdict: Unknown, Explanation: "no acquire was granted: " +
			"the history exercises nothing (a lock that could not start, or refused every acquire); a violation found in it is real, its absence decides nothing"})
	}
	if why := undriven(h, opts); why != "" {
		rep.Results = append(rep.Results, Result{Checker: CheckWellFormed, Verdict: Unknown, Explanation: why})
	}
	if why := rep.Unfinished; why != "" {
		rep.Results = append(rep.Results, Result{Checker: CheckComplete, Verdict: Unknown, Explanation: fmt.Sprintf(
			"the history is a prefix of a run that did not finish (%s): a violation found in it is real, but the rest of the run was never checked", why)})
	}
	rep.Verdict = combine(rep.Results)
	return rep
}

// granted reports whether some acquire in h was granted.
func granted(h *History) bool {
	for i := range h.Ops {
		if (h.Ops[i].Kind == Acquire || isGrantKind(h.Ops[i].Kind) || h.Ops[i].Kind == LatchAwait) && h.Ops[i].Outcome == OK {
			return true
		}
	}
	return false
}

// family is the checker family of one object kind: its checkers, and the
// one of them that judges the exclusion the object promises.
type family struct {
	run       func(ctx context.Context, h *History, opts Options) []Result
	exclusion string
}

// families are the checker families by the object kind a history declares
// (Header.Object, History.Object): the one place that picks a history's
// checkers by its kind.
var families = map[string]family{
	ObjectLock:    {runLockCheckers, CheckMutualExclusion},
	ObjectPermits: {runPermitCheckers, CheckConserved},
}

// familyOf is the checker family of object kind object (a lock's for a
// kind with none).
func familyOf(object string) family {
	if f, ok := families[object]; ok {
		return f
	}
	return families[ObjectLock]
}

// ExclusionChecker is the checker that judges the exclusion an object of
// kind object promises: CheckMutualExclusion for a lock, CheckConserved
// (no more permits held than the total) for a semaphore or latch.
func ExclusionChecker(object string) string { return familyOf(object).exclusion }

// runCheckers runs the applicable checkers of h's family (its declared
// object kind) in turn until ctx ends; those it did not reach are Unknown.
func runCheckers(ctx context.Context, h *History, opts Options) []Result {
	return familyOf(h.Object()).run(ctx, h, opts)
}

// runLockCheckers runs the applicable lock checkers in turn until ctx
// ends; those it did not reach are Unknown.
func runLockCheckers(ctx context.Context, h *History, opts Options) []Result {
	sections, tokens := false, false
	for i := range h.Ops {
		sections = sections || h.Ops[i].Kind == Section
		tokens = tokens || h.Ops[i].Token != 0
	}
	checkers := []struct {
		name string
		run  func() Result
		when bool
	}{
		{CheckLinearizable, func() Result { return checkLinearizability(ctx, h, opts) }, true},
		{CheckMutualExclusion, func() Result { return checkMutex(ctx, h, opts) }, sections},
		{CheckFencing, func() Result { return CheckFences(h, opts) }, tokens},
		{CheckFairness, func() Result { return CheckFair(h, opts) }, opts.Fair},
		{CheckLiveness, func() Result { return CheckLive(startedUp(h, opts.Wire), opts) }, true},
		{CheckContract, func() Result { return CheckTiming(startedUp(h, opts.Wire), opts) }, true},
		{CheckAllowance, func() Result { return checkBeyond(ctx, h, opts) }, true},
	}
	var out []Result
	for _, c := range checkers {
		switch {
		case !c.when:
		case ctx.Err() != nil:
			out = append(out, stoppedResult(c.name, stopReason(ctx, opts)))
		default:
			out = append(out, c.run())
		}
	}
	return out
}

func combine(rs []Result) Verdict {
	v := Valid
	for _, r := range rs {
		switch r.Verdict {
		case Invalid:
			return Invalid
		case Unknown:
			v = Unknown
		}
	}
	return v
}
