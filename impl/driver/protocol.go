package driver

import (
	"slices"
	"strconv"
	"time"
)

// Version is the protocol version this package speaks. It still serves
// drivers of version MinVersion (one owner per process).
const Version = 2

// MinVersion is the oldest protocol version lockcheck still serves.
const MinVersion = 1

// Capabilities a driver may announce in its banner.
const (
	CapReentrant = "reentrant"
	CapFair      = "fair"
	CapFenced    = "fenced"
	CapWatchdog  = "watchdog"
	CapHoldCount = "holdcount"
	CapCycle     = "cycle"
	// CapOwners (protocol 2): one process hosts several owners that share
	// its client instance; requests name their owner and replies may come
	// out of order.
	CapOwners = "owners"
	// CapInterrupt (with CapOwners): a lock, trylock or unlock in flight
	// may be interrupted (OpInterrupt), as a Java thread is by
	// Thread.interrupt() or a Go call by its context's cancellation.
	CapInterrupt = "interrupt"
	// CapReadWrite: the lock is a read-write lock; lock, trylock, unlock
	// and holdcount requests carry Mode (ModeRead or ModeWrite; absent:
	// write).
	CapReadWrite = "rwlock"
	// CapSharedObjects: hello's SharedObjects is honoured: the client keeps
	// one lock object per lock name (and side) and serves every later
	// request of every owner on it, as an application keeps one in a field.
	CapSharedObjects = "shared-objects"
	// CapForms: lock, trylock and unlock requests may carry FormDraw, and
	// the driver then makes the call in one of the forms its library
	// offers (impl.CallForm), naming it in the reply's Form.
	CapForms = "forms"
)

// Modes of a read-write lock's requests (CapReadWrite).
const (
	ModeRead  = "read"
	ModeWrite = "write"
)

// Ops of the requests.
const (
	OpHello     = "hello"
	OpLock      = "lock"
	OpTryLock   = "trylock"
	OpUnlock    = "unlock"
	OpHoldCount = "holdcount"
	OpToken     = "token"
	OpCycle     = "cycle"
	// OpInterrupt interrupts the request Target of an owner (CapInterrupt).
	OpInterrupt = "interrupt"
)

// Banner is the first line a driver prints.
type Banner struct {
	Protocol     int      `json:"protocol"`
	Driver       string   `json:"driver"`
	Version      string   `json:"version,omitempty"`
	Capabilities []string `json:"capabilities"`
	// Topologies are those hello may name (TopologySingle, ...); none
	// means TopologySingle only.
	Topologies []string `json:"topologies,omitempty"`
}

// Has reports whether the banner announces capability c.
func (b Banner) Has(c string) bool { return slices.Contains(b.Capabilities, c) }

// interrupts reports whether the driver's calls can be interrupted: it
// announces CapInterrupt with CapOwners (protocol 2), since an interrupt
// reaches an owner's call while the driver reads on. Such a process names
// the owner of every request even when it hosts one.
func (b Banner) interrupts() bool {
	return b.Has(CapInterrupt) && b.Has(CapOwners) && b.Protocol >= 2
}

// String names the driver and its version.
func (b Banner) String() string {
	if b.Version == "" {
		return b.Driver
	}
	return b.Driver + " " + b.Version
}

// Request is one request to a driver. Fields a request does not use are
// left out of its JSON (a missing number means 0).
type Request struct {
	ID        int64  `json:"id"`
	Op        string `json:"op"`
	TimeoutMS int64  `json:"timeout_ms"`

	// hello
	Protocol   int      `json:"protocol,omitempty"`
	Redis      []string `json:"redis,omitempty"`
	Username   string   `json:"username,omitempty"`
	Password   string   `json:"password,omitempty"`
	DB         int      `json:"db,omitempty"`
	Client     string   `json:"client,omitempty"`
	WatchdogMS int64    `json:"watchdog_ms,omitempty"`
	// ReadTimeoutMS is how long lockcheck's own clients wait for a reply
	// (0: not said); a driver may give its client the same.
	ReadTimeoutMS int64 `json:"read_timeout_ms,omitempty"`
	Seed          int64 `json:"seed,omitempty"`
	// Topology is TopologySentinel or TopologyCluster; "" is TopologySingle.
	Topology         string `json:"topology,omitempty"`
	MasterName       string `json:"master_name,omitempty"`
	SentinelPassword string `json:"sentinel_password,omitempty"`
	// Owners (protocol 2, CapOwners) is how many owners the process will
	// host at most; 0: one, and requests name none (1: one, named, as
	// lockcheck says it to a driver with CapInterrupt).
	Owners int `json:"owners,omitempty"`
	// SharedObjects (CapSharedObjects) asks the driver to make each lock
	// object once, at the first request for its name (and side), and to
	// serve every later request of every owner of the process on it;
	// false: a new object per request.
	SharedObjects bool `json:"shared_objects,omitempty"`

	// Owner (protocol 2, CapOwners) names the owner a request is made by;
	// "" is hello's client.
	Owner string `json:"owner,omitempty"`

	// lock, trylock, unlock, holdcount, token, cycle
	Name string `json:"name,omitempty"`
	// Mode (CapReadWrite) is the side of a read-write lock: ModeRead or
	// ModeWrite; "" is the write side.
	Mode    string `json:"mode,omitempty"`
	LeaseMS int64  `json:"lease_ms,omitempty"`
	WaitMS  int64  `json:"wait_ms,omitempty"`

	// cycle
	DurationMS int64 `json:"duration_ms,omitempty"`
	Log        bool  `json:"log,omitempty"`

	// Interruptible (lock, trylock, unlock; CapInterrupt) says lockcheck may
	// interrupt the request: the driver makes the call that its library
	// lets a thread's interrupt cut off.
	Interruptible bool `json:"interruptible,omitempty"`

	// FormDraw (lock, trylock, unlock; CapForms) picks the call's form:
	// of the forms that fit the request's arguments, in the driver's
	// order (its default first), form FormDraw mod their number; 0 or
	// absent: the default.
	FormDraw uint32 `json:"form_draw,omitempty"`

	// interrupt: the id of the request to interrupt.
	Target int64 `json:"target,omitempty"`

	// sem_* (CapSemaphore): the permit count.
	Permits int `json:"permits,omitempty"`

	// psem_release (CapPermitSemaphore): the permit's id.
	PermitID string `json:"permit_id,omitempty"`
	// latch_trysetcount (CapLatch): the count to set.
	Count int64 `json:"count,omitempty"`
}

// Status is a reply's outcome.
type Status string

// Reply statuses.
const (
	StatusOK    Status = "ok"
	StatusFail  Status = "fail"
	StatusError Status = "error"
)

// Reply is a driver's answer to one request.
type Reply struct {
	ID     int64  `json:"id"`
	Status Status `json:"status"`
	// Error is the message of an error reply.
	Error string `json:"error,omitempty"`
	// RedisError marks an error reply that Redis itself gave to the command.
	RedisError bool `json:"redis_error,omitempty"`
	// Token is a fenced grant's token (lock, trylock, token).
	Token int64 `json:"token,omitempty"`
	// Count is holdcount's answer, or the grants of a cycle.
	Count int `json:"count,omitempty"`
	// Grants are a cycle's grants (with "log"): [requested, granted,
	// released], CLOCK_MONOTONIC nanoseconds.
	Grants [][3]int64 `json:"grants,omitempty"`
	// Enqueued is when a fair driver's lock or trylock request joined the
	// lock's queue, if it did (CLOCK_MONOTONIC nanoseconds).
	Enqueued int64 `json:"enqueued,omitempty"`
	// Open is when a cycle's last lock was requested, if it was still
	// waiting when the cycle ended (CLOCK_MONOTONIC nanoseconds).
	Open int64 `json:"open,omitempty"`
	// Interrupted marks the fail of a lock or trylock that gave up because
	// an interrupt reached it (CapInterrupt): nothing was acquired.
	Interrupted bool `json:"interrupted,omitempty"`
	// Form names the call a lock, trylock or unlock made (CapForms), in
	// the library's terms: "lock(2, SECONDS)".
	Form string `json:"form,omitempty"`
	// PermitID is the id of the permit a psem_tryacquire or psem_acquire
	// took (CapPermitSemaphore).
	PermitID string `json:"permit_id,omitempty"`
	// Stalls are the driver process's own stalls seen since its previous
	// reply: [start, end] CLOCK_MONOTONIC nanoseconds of each time it
	// woke late (a starved CPU, a GC pause, a SIGSTOP). Any reply may
	// carry them (Options.OnStall).
	Stalls [][2]int64 `json:"stalls,omitempty"`
}

// millis converts d to whole milliseconds, rounding a positive sub-millisecond
// duration up so that it never reads as 0 ("none").
func millis(d time.Duration) int64 {
	if d > 0 && d < time.Millisecond {
		return 1
	}
	return d.Milliseconds()
}

// describe renders a request for error messages.
func (r Request) describe() string {
	s := r.Op
	if r.Name != "" {
		s += " " + r.Name
	}
	if r.Owner != "" {
		s += " by " + r.Owner
	}
	return s + " #" + strconv.FormatInt(r.ID, 10)
}
