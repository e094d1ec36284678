// Package subject defines the lock implementations the harness runs
// (Subject) and the one registry of them by name (Registry) that the runner,
// the benchmark and the CLI share. It holds no concrete lock: package
// workloads/catalog lists lockcheck's own locks, the peers, the drivers and
// the mutants, and code outside this module registers its own.
package subject

import (
	"context"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// Kind groups subjects in listings and reports.
type Kind string

// Subject kinds.
const (
	KindReference Kind = "reference" // lockcheck's own locks; must pass every safe scenario
	KindPeer      Kind = "peer"      // adapters for other libraries
	KindMutant    Kind = "mutant"    // deliberately broken; must be caught
	KindUser      Kind = "user"      // registered from outside this module
	// KindExternal marks subjects whose lock runs in a driver process (any
	// language) speaking impl/driver's protocol.
	KindExternal Kind = "external"
	// KindPermits marks a semaphore or latch: its object kind (the same
	// word as model.ObjectPermits, which the scoreboard reads) has a
	// runner of its own (scenario.RunnerOf,
	// which runs package permits), not the lock runner. Its subjects name
	// the object only: Open and Configure are nil.
	KindPermits Kind = "permits"
)

// Subject is a named lock implementation the harness can run.
type Subject struct {
	// Name identifies the subject on the command line (lowercase, no spaces).
	Name string
	// Doc is a one-line description.
	Doc string
	// Kind says where the subject comes from. Register defaults it to KindUser.
	Kind Kind
	// Open makes a Maker on a go-redis client with the subject's default
	// settings; the runner calls it once per client connection when Configure
	// is nil. Register fills it from Configure when only Configure is set.
	Open impl.MakerFunc
	// Configure, if set, returns the MakerFunc for one run's settings (the
	// watchdog lease of holds taken with lease <= 0, the run's seed). The
	// runner prefers it to Open, so that a run's short watchdog lease reaches
	// the lock and the checker alike.
	Configure func(OpenOptions) impl.MakerFunc
	// WatchdogLease is how long a hold taken through Open with lease <= 0
	// lasts after its last renewal (0: impl.DefaultWatchdogTimeout, 30 s).
	// The checker needs it when Configure is nil: a retired process's hold
	// is assumed gone one WatchdogLease after its last request.
	WatchdogLease time.Duration
	// Reentrant says the same handle may lock again while it holds the lock.
	// Workloads only reenter subjects that say so.
	Reentrant bool
	// ReadWrite says the lock is a read-write lock whose handles implement
	// impl.Sided: workloads with read shares take the read side for some
	// cycles, and every op records its side (model.Op.Mode).
	ReadWrite bool
	// Fair says grants follow request order, so the fairness checker applies.
	Fair bool
	// QueueTimeout is a fair lock's claim of how long a queued waiter
	// whose process died keeps its place (Redisson's fairLockWaitTimeout;
	// model.Options.QueueTimeout): those behind it may wait that long.
	QueueTimeout time.Duration
	// Served says the lock has no in-process fault hook (impl.Freezer,
	// impl.Abandoner): only a stopped or killed process stops its watchdog.
	// Every run of it serves its clients in processes of their own
	// (workloads.PausesProcess) when it can, as a user's lock is run.
	Served bool
	// NoWatchdog says holds taken with lease <= 0 are not renewed: they
	// last the watchdog lease and run out. Plans leave out the long holds
	// that only renewal keeps safe (Phases.LongHold). A lock registered
	// without it is assumed to renew, as Redisson's Lock(ctx, 0) does.
	NoWatchdog bool
	// SplitVotes says the lock is a quorum of nodes (RedLock): concurrent
	// acquires may split the nodes' votes so that each fails while no one
	// holds a quorum. A failed acquire while another process's acquire was
	// in flight is then legal on a free lock (model.Options.SplitVotes).
	SplitVotes bool
	// AttemptsHold says an acquire's failed attempt may hold the lock for
	// a moment before the client gives it back and tries again, as the
	// RedLock algorithm does on one node too (redsync: an attempt whose
	// reply came too late is released, then retried, within one call). A
	// failed acquire while another process's acquire was in flight is then
	// legal on a free lock (model.Options.AttemptsHold). SplitVotes implies
	// it.
	AttemptsHold bool
	// TTLWakeups says a waiter that missed an unlock message may wait out
	// the TTL it last saw before it tries again: Redisson's documented
	// bound (every wait is bounded by the holder's TTL), which a lock whose
	// wake-ups do not reach other processes meets only that way. Liveness
	// then judges each stretch of waiting on a free lock against one lease
	// (model.Options.TTLWakeups) instead of the prompt bounds that polling
	// locks and lockcheck's own meet.
	TTLWakeups bool
	// LeaseGranularity, if set, says the lock keeps leases in whole
	// multiples of it and rounds other leases up (python-redis-lock: whole
	// seconds, EX). Runs then ask for such leases only: the explicit lease,
	// overrun phases' leases and the watchdog lease are rounded up, so the
	// checkers judge the lease the lock really holds.
	LeaseGranularity time.Duration
	// Catches names, for a mutant, the checker that must catch it.
	Catches string
	// Parts are the subjects of a mixed fleet (Mix): process id p runs
	// Parts[p % len(Parts)]. Open and Configure are then unused.
	Parts []Subject
	// SyncsReplicas says that, on a master with replicas, the lock follows
	// each grant with WAIT and refuses a grant no replica acknowledged
	// (Redisson's default checkLockSyncedSlaves), without needing replicas
	// (one server: no WAIT).
	SyncsReplicas bool
	// Needs names the topology the subject needs beyond one Redis (e.g.
	// NeedsReplicas, NeedsRedlockNodes); "" runs anywhere. Runs on other
	// topologies refuse it or skip it.
	Needs string
	// WaitSpent says a TryLock may be refused once its wait is spent,
	// whatever the lock's state (a multilock spends it across its members):
	// model.Options.WaitSpent.
	WaitSpent bool
	// SplitWait is how long the lock may wait on a free lock while its
	// attempts wait out each other's share of the wait (Redisson's RedLock:
	// 1.5 s): model.Options.SplitWait.
	SplitWait time.Duration
	// ReplyTimeout is how long the lock's client waits on a request whose
	// connection closed under it before it gives the request up: its
	// command timeout, for a client that waits that out on a closed
	// connection (Redisson), 0 for one whose closed connection fails its
	// requests at once (go-redis): model.Options.ReplyTimeout.
	ReplyTimeout time.Duration
	// Members, >= 2, says the subject is a multilock over that many member
	// locks named impl.MemberNames(lock, Members): every op it records
	// names the other members (model.Op.Also), so the linearizability
	// checker checks each member, against plain holders of it too.
	Members int
	// Fenced says grants carry fencing tokens (the fencing checker applies).
	Fenced bool
	// Owners says an external subject's driver hosts several owners in one
	// process (capability owners; see HostsOwners).
	Owners bool
	// Interrupts says an external subject's calls can be interrupted (its
	// driver announces capability interrupt; see CanInterrupt).
	Interrupts bool
	// SharedObjects says an external subject's driver can keep one lock
	// object per name in each client, reused by every request of every
	// owner (capability shared-objects; see SharesObjects).
	SharedObjects bool
	// CallForms says an external subject's driver makes each call in the
	// form a request draws (capability forms; see VariesForms).
	CallForms bool
	// Version, if set, names the library the subject runs and its version
	// (a driver's banner, a Go module's build info), for the scoreboard.
	Version func(ctx context.Context) (library, version string, err error)
	// Release, if set, is the release of its library the subject runs,
	// known without starting it ("4.7.0"): runs record it.
	Release string
	// Versions, if set, makes the subject runnable at other releases of
	// its library (NAME@VERSION, see Registry.LookupContext).
	Versions *Versions
	// NotScored, if set, says why the scoreboard leaves a library subject
	// out (lockcheck's own lock behind a driver, a tuned variant of a
	// library that is scored at its defaults).
	NotScored string
	// OnNodes, set on subjects that need NeedsRedlockNodes, returns the
	// subject bound to the independent nodes at addrs, which require
	// password ("": none). Registry.OnNodes binds every such subject.
	OnNodes func(addrs []string, password string) Subject
}

// AsClaimed is s judged as the lock it claims to be: a mutant as a
// reference lock (its base, without its flaw), so that a hunt or a test
// holds it to what a correct lock must show; any other subject as it is.
func (s Subject) AsClaimed() Subject {
	if s.Kind == KindMutant {
		s.Kind = KindReference
	}
	return s
}

// ConfiguredClient reports whether lockcheck configures s's Redis client:
// the go-redis client of its own locks, the Go peers and the mutants (a 1 s
// read timeout, a retry on a fresh connection), which recovers from a reset
// at once. A driver's or a user's lock brings a client of its own, which may
// take time to replace the connections a fault closed. A mix is
// configured when every part is.
func (s Subject) ConfiguredClient() bool {
	return s.everyPart(func(p Subject) bool {
		return p.Kind == KindReference || p.Kind == KindPeer || p.Kind == KindMutant
	})
}

// Scored reports whether the scoreboard covers s: a library people run
// (an external driver or a Go peer) that does not say NotScored.
func (s Subject) Scored() bool {
	return (s.Kind == KindExternal || s.Kind == KindPeer) && s.NotScored == ""
}

// Topology needs of subjects (Subject.Needs).
const (
	// NeedsReplicas: a master with replicas (WAIT-synced locks refuse
	// every acquire without one).
	NeedsReplicas = "replicas"
	// NeedsRedlockNodes: N independent Redis nodes.
	NeedsRedlockNodes = "redlock-nodes"
	// NeedsOneAddress: one Redis at one host:port (external drivers are
	// told an address, not a Sentinel or Cluster client).
	NeedsOneAddress = "one-address"
)

// OpenOptions are the run settings a subject's Configure receives.
type OpenOptions struct {
	// WatchdogLease is the lease of holds taken with lease <= 0 (renewed by
	// a watchdog where the lock has one; the plain lease of the simple lock).
	WatchdogLease time.Duration
	// Seed is the run's seed, for locks with random backoff or jitter.
	Seed int64
	// OwnerEnv, if set, is added to the environment of each driver
	// process of an external subject (driver.Options.OwnerEnv): a clock
	// shim per client, say.
	OwnerEnv func(owner string) []string
	// Owners, > 1, is how many owners share one client process (threads
	// on one client instance): an external subject's driver then hosts
	// that many in one process (driver.Options.Owners). Go locks need
	// nothing: the owners of a process share its Maker.
	Owners int
	// SharedObjects asks an external subject's driver to keep one lock
	// object per name in each client process, reused by all its requests
	// (driver.Options.SharedObjects; Plan.SharedObjects).
	SharedObjects bool
	// OnStall, if set, hears the stalls an external subject's driver
	// processes report of themselves (driver.Options.OnStall).
	OnStall func(owners []string, start, end time.Time)
}

// Server opens a Go subject's lock clients in processes of their own: it
// returns the MakerFunc whose Makers start one such process per owner,
// serving s with o's settings over the driver protocol (catalog.ServedBy).
// A run whose client stalls are process pauses takes one
// (workloads.Deps.Serve).
type Server func(s Subject, o OpenOptions) (impl.MakerFunc, error)

// HostsOwners reports whether several owners can share one client process
// of s (Plan.ThreadsPerProcess > 1): a Go lock that can run in lockcheck's
// process (its owners share one Maker and go-redis client; not one that
// runs only served, Served), an external subject when its driver hosts
// owners (Owners), a mix when every part can.
func (s Subject) HostsOwners() bool {
	return s.everyPart(func(p Subject) bool { return p.Kind != KindExternal && !p.Served || p.Owners })
}

// SharesObjects reports whether s can run Plan.SharedObjects: every part
// of it is an external subject whose driver keeps one lock object per name
// when asked (SharedObjects). A Go lock has no lock objects to share: each
// owner's handle is its own.
func (s Subject) SharesObjects() bool {
	return s.everyPart(func(p Subject) bool { return p.Kind == KindExternal && p.SharedObjects })
}

// VariesForms reports whether s can run Plan.CallForms: every part of it is
// an external subject whose driver makes each call in a drawn form
// (CallForms). A Go lock has one form per call.
func (s Subject) VariesForms() bool {
	return s.everyPart(func(p Subject) bool { return p.Kind == KindExternal && p.CallForms })
}

// everyPart reports whether ok holds for s, or for every part of a mix.
func (s Subject) everyPart(ok func(Subject) bool) bool {
	if len(s.Parts) == 0 {
		return ok(s)
	}
	for _, p := range s.Parts {
		if !p.everyPart(ok) {
			return false
		}
	}
	return true
}

// CanInterrupt reports whether the calls of s can be interrupted (a
// client-interrupt fault, a cancelled acquire) without ending its client
// process: a Go lock's always (Locker's contract), an external subject's
// when its driver says so (Interrupts), a mix's when every part's can.
func (s Subject) CanInterrupt() bool {
	return s.everyPart(func(p Subject) bool { return p.Kind != KindExternal || p.Interrupts })
}

// MakerFor returns the MakerFunc to use with opts and the watchdog lease its
// holds will have: Configure(opts) and opts.WatchdogLease when Configure is
// set, else Open and the subject's WatchdogLease (default 30 s).
func (s Subject) MakerFor(opts OpenOptions) (impl.MakerFunc, time.Duration) {
	if s.Configure != nil {
		return s.Configure(opts), opts.WatchdogLease
	}
	if s.WatchdogLease > 0 {
		return s.Open, s.WatchdogLease
	}
	return s.Open, impl.DefaultWatchdogTimeout
}
