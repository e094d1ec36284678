// Package model holds the History every run records, its JSON Lines codec,
// the sequential lock model checked with porcupine, and the other checkers
// (mutual exclusion on a protected resource, fencing, fairness, liveness).
//
// model imports only porcupine and the standard library: a model that shares
// code with the implementation shares its bugs.
//
// Times in a History are int64 nanoseconds since one monotonic base (for
// example time.Since(base).Nanoseconds() with one base per run).
package model

import "fmt"

// Kind says what an Op did.
type Kind string

const (
	// Acquire is Lock or TryLock: one hold requested.
	Acquire Kind = "acquire"
	// Release is Unlock: one hold released.
	Release Kind = "release"
	// Abandon records that the process stopped without unlocking (a crashed
	// client, or a handle the runner abandoned). Whatever the process held
	// belongs to a retired process from then on. Its Outcome is ignored.
	Abandon Kind = "abandon"
	// Section is a critical section on the protected resource: the process,
	// believing it held Lock, read Read from the resource and wrote Write
	// (presenting Token when the resource is fenced). Outcome ok: the write
	// was accepted; fail: it was rejected (stale token); info: unknown.
	Section Kind = "section"
	// Expire records that a hold was let run out on purpose: the process
	// kept working past the explicit lease of its last acquire, so the
	// server dropped the hold at some instant within [Call, Return] (the
	// acquire's call and return plus the lease, widened by the clock's
	// granularity). Its process did nothing: it may overlap the process's
	// own ops. A later release by that process must fail (not the owner).
	// Outcome is ok.
	Expire Kind = "expire"
)

// Outcome is what the client learned about an Op, as in Jepsen.
type Outcome string

const (
	// OK: it happened (acquire granted a hold, release released one).
	OK Outcome = "ok"
	// Fail: it definitely did not happen.
	Fail Outcome = "fail"
	// Info: unknown (timeout, EOF, reset after the request was sent). The
	// process that issued it is retired: it issues no further ops.
	Info Outcome = "info"
)

// Op is one completed operation of one process on one lock.
type Op struct {
	// Process is the logical client: one owner of locks. A process runs one
	// op at a time; a process retired by an Info op or an Abandon never
	// appears again. Every checker treats each Process as a client of its
	// own, whichever client process it ran in.
	Process int `json:"p"`
	// Client is the client process (a driver process, a JVM, a go-redis
	// client with its Maker) the owner ran in, 1, 2, ...: owners of one
	// Client are its threads, sharing one client instance, and a fault on
	// the process hits them all. 0: not recorded (each Process was a client
	// process of its own). It only groups owners (CountHandoffs).
	Client int `json:"client,omitempty"`
	// Lock is the lock's name.
	Lock string `json:"lock"`
	// Also names, comma-separated, the other locks an op of a multilock
	// took, released or let run out along with Lock: its other members
	// (members.go). A string, not a slice, so that Op stays comparable.
	Also string `json:"also,omitempty"`
	Kind Kind   `json:"kind"`
	// Call and Return are nanoseconds from the run's monotonic base.
	Call   int64 `json:"call"`
	Return int64 `json:"ret"`
	// Deadline is, for an Info op, the latest time at which its request could
	// still take effect on the server (0: Return).
	Deadline int64 `json:"deadline,omitempty"`
	// Lease is the requested lease in nanoseconds for an Acquire; <= 0 asks
	// for a watchdog-renewed hold (Options.WatchdogLease applies).
	Lease int64 `json:"lease,omitempty"`
	// Wait is TryLock's wait in nanoseconds; ignored when Blocking.
	Wait int64 `json:"wait,omitempty"`
	// Blocking is true for Lock (wait until granted or ctx ends).
	Blocking bool `json:"blocking,omitempty"`
	// Mode is the side of a read-write lock an Acquire or Release took or
	// let go, and the side a Section ran under: ModeRead or ModeWrite. ""
	// is the exclusive lock of the other lock kinds (a write, on a lock
	// whose other ops have a mode).
	Mode string `json:"mode,omitempty"`
	// Cancelled says the process itself cancelled the acquire's context
	// while it ran: failing is then legal whatever the lock's state.
	Cancelled bool `json:"cancelled,omitempty"`
	// Token is the fencing token granted (Acquire ok) or presented (Section).
	Token int64 `json:"token,omitempty"`
	// Enqueued is, for a fair lock's Acquire, when the request was known to
	// be in the queue (0: unknown or not queued).
	Enqueued int64 `json:"enq,omitempty"`
	// Resource names the protected resource of a Section ("" = Lock).
	Resource string `json:"res,omitempty"`
	// Read and Write are the values a Section read and wrote.
	Read  int64 `json:"read,omitempty"`
	Write int64 `json:"write,omitempty"`
	// Seq is the position of a Section's accepted write in the resource's own
	// order of accepted writes (1-based; 0: unknown).
	Seq int64 `json:"seq,omitempty"`
	// Overrun marks a Section that outlasted its hold's lease on purpose
	// (an Expire op of its process ends the hold inside it): other
	// sections may overlap it and its read may be stale; its write, if
	// the resource accepted it, still sets the value later sections read.
	Overrun bool `json:"overrun,omitempty"`
	// N is a permit count: the permits a SemAcquire takes or a SemRelease
	// gives back, the change of a SemAdd (may be < 0), the permits a
	// SemSet sets (see permits.go).
	N int64 `json:"n,omitempty"`
	// PermitID is the id of the permit a PermitAcquire was granted or a
	// PermitRelease gave back.
	PermitID string  `json:"permit_id,omitempty"`
	Outcome  Outcome `json:"outcome"`
	// Form is the library call an Acquire or Release made, when the run
	// varied the call forms (impl.CallForm): "lock(2, SECONDS)". For the
	// reader only; no checker looks at it.
	Form string `json:"form,omitempty"`
	// Error is the raw error text the client saw, if any.
	Error string `json:"err,omitempty"`
	// DriverFailed says the call ended because the driver process serving
	// it failed (crashed, wrote garbage, or gave no reply within its
	// request's time and the grace: impl.ErrAdapter), not with an answer of
	// the library: its duration says nothing of the library's (answerBy).
	DriverFailed bool `json:"driver_failed,omitempty"`
}

// effectiveDeadline is the latest time the op may take effect.
func (o Op) effectiveDeadline() int64 {
	if o.Outcome == Info && o.Deadline > o.Return {
		return o.Deadline
	}
	return o.Return
}

// resource is the protected resource a Section touched.
func (o Op) resource() string {
	if o.Resource != "" {
		return o.Resource
	}
	return o.Lock
}

// retires reports whether the process is retired by this op. An Expire
// never does, whatever its recorded outcome: it is the server's act.
func (o Op) retires() bool { return o.Kind != Expire && (o.Outcome == Info || o.Kind == Abandon) }

// String renders the op on one line, for explanations.
func (o Op) String() string {
	s := fmt.Sprintf("p%d %s %s", o.Process, o.Kind, o.Lock)
	if o.Mode != "" {
		s = fmt.Sprintf("p%d %s(%s) %s", o.Process, o.Kind, o.Mode, o.Lock)
	}
	switch o.Kind {
	case Acquire:
		if o.Blocking {
			s += " (blocking"
		} else {
			s += fmt.Sprintf(" (wait %s", fmtDur(o.Wait))
		}
		if o.Lease > 0 {
			s += fmt.Sprintf(", lease %s)", fmtDur(o.Lease))
		} else {
			s += ", watchdog)"
		}
	case Section:
		s += fmt.Sprintf(" read %d write %d", o.Read, o.Write)
	}
	if o.Token != 0 {
		s += fmt.Sprintf(" token %d", o.Token)
	}
	s += fmt.Sprintf(" -> %s [%s, %s]", o.Outcome, fmtTime(o.Call), fmtTime(o.Return))
	if o.Error != "" {
		s += " (" + o.Error + ")"
	}
	return s
}

// Fault is a fault window on the history's clock.
type Fault struct {
	Name string `json:"name"`
	// Target is what the fault hit (a server, a proxy, a process), free text.
	Target string `json:"target,omitempty"`
	Start  int64  `json:"start"`
	// End is when the fault healed; 0 means it never healed in the record
	// (a crashed run): it lasts to the end of the history.
	End int64 `json:"end,omitempty"`
	// Procs are the processes a client-side fault acted on (a stalled
	// worker's, or those whose connection a broken link carried); empty:
	// every process (a server-side fault, or a target not recorded).
	Procs []int `json:"procs,omitempty"`
}

// end returns the end of the window, open windows ending at horizon.
func (f Fault) end(horizon int64) int64 {
	if f.End == 0 || f.End < f.Start {
		return horizon
	}
	return f.End
}

// String renders the window, e.g. "pause redis-1 [1.2s, 3.4s]".
func (f Fault) String() string {
	s := f.Name
	if f.Target != "" {
		s += " " + f.Target
	}
	if f.End == 0 {
		return s + fmt.Sprintf(" [%s, never healed]", fmtTime(f.Start))
	}
	return s + fmt.Sprintf(" [%s, %s]", fmtTime(f.Start), fmtTime(f.End))
}

// Header is the first line of a recorded history.
type Header struct {
	// Version is the format version (FormatVersion when written).
	Version int `json:"version"`
	// Meta is opaque run metadata (seed, subject, scenario, ...).
	Meta map[string]string `json:"meta,omitempty"`
	// Ends promises an End record as the history's last line once the run
	// is over: a history that promises one and lacks it is the prefix of a
	// run that did not finish (killed between two lines), never valid.
	Ends bool `json:"ends,omitempty"`
	// Object is the kind of object the run drove (ObjectLock,
	// ObjectPermits): it picks the checker family (Object). Histories
	// written before the field existed leave it empty.
	Object string `json:"object,omitempty"`
}

// Object kinds a history declares (Header.Object).
const (
	// ObjectLock: a lock or read-write lock (the lock checkers).
	ObjectLock = "lock"
	// ObjectPermits: a semaphore, permit semaphore or latch (CheckPermits).
	ObjectPermits = "permits"
)

// Object is the kind of object h records: its header's declared Object.
// A history written before the header declared it (Object "") is
// ObjectPermits when it records a semaphore or latch op, else ObjectLock:
// that sniff is kept only to read such old histories.
func (h *History) Object() string {
	if h.Header.Object != "" {
		return h.Header.Object
	}
	for i := range h.Ops {
		if isPermitKind(h.Ops[i].Kind) {
			return ObjectPermits
		}
	}
	return ObjectLock
}

// End is the last record of a history whose run is over.
type End struct {
	// Interrupted says the run was stopped early (SIGINT, SIGTERM, a
	// cancelled context): what it recorded is real, but the run it was
	// asked for did not happen.
	Interrupted bool `json:"interrupted,omitempty"`
	// At is the run's time when it ended (ns on the history's clock).
	At int64 `json:"at"`
}

// FormatVersion is the JSON Lines format version this package writes.
const FormatVersion = 1

// Truncation describes a last line that a crashed run left incomplete.
type Truncation struct {
	Line  int // 1-based line number
	Bytes int // length of the dropped fragment
}

// History is one run: ops (in any order; checkers sort what they need) and
// fault windows, on one clock.
type History struct {
	Header Header
	Ops    []Op
	Faults []Fault
	// Truncated is set by ReadHistory when the last line was incomplete and
	// dropped; nil otherwise.
	Truncated *Truncation
	// End is the history's End record (nil: none was written).
	End *End
	// lines[i] is the 1-based line of Ops[i] in the file ReadHistory read
	// (nil for histories built in memory); Validate names it while Ops
	// still has one op per line (a caller that reorders Ops in place
	// misleads it).
	lines []int32
	// faultLines is lines for Faults.
	faultLines []int32
}

// horizon is the latest time in the history.
func (h *History) horizon() int64 {
	var t int64
	for _, o := range h.Ops {
		t = max(t, o.Return, o.effectiveDeadline())
	}
	for _, f := range h.Faults {
		t = max(t, f.Start, f.End)
	}
	return t
}

func fmtDur(ns int64) string {
	switch {
	case ns%1e9 == 0:
		return fmt.Sprintf("%ds", ns/1e9)
	case ns >= 1e9:
		return fmt.Sprintf("%.3gs", float64(ns)/1e9)
	case ns%1e6 == 0:
		return fmt.Sprintf("%dms", ns/1e6)
	case ns >= 1e6:
		return fmt.Sprintf("%.3gms", float64(ns)/1e6)
	default:
		return fmt.Sprintf("%dns", ns)
	}
}

// fmtTime renders a history time as seconds from the base.
func fmtTime(ns int64) string { return fmt.Sprintf("%.6fs", float64(ns)/1e9) }

// Unfinished says why h is not the history of a whole run ("" when it is, or
// cannot tell): its last line was cut short, it promised an End record and
// has none, or its run was interrupted.
func (h *History) Unfinished() string {
	switch {
	case h.Truncated != nil:
		return fmt.Sprintf("its last line, line %d, was cut short", h.Truncated.Line)
	case h.Header.Ends && h.End == nil:
		return "it has no end record: the run was killed before it finished"
	case h.End != nil && h.End.Interrupted:
		return "the run was interrupted before its duration was over"
	}
	return ""
}
