package workloads

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
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
	// Fair says grants follow request order, so the fairness checker applies.
	Fair bool
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
	// OnNodes, set on subjects that need NeedsRedlockNodes, returns the
	// subject bound to the independent nodes at addrs, which require
	// password ("": none). Registry.OnNodes binds every such subject.
	OnNodes func(addrs []string, password string) Subject
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

// ErrUnknownSubject is returned by Lookup for a name nobody registered.
var ErrUnknownSubject = errors.New("unknown subject")

// Registry is a set of subjects by name, safe for concurrent use.
type Registry struct {
	mu sync.RWMutex
	m  map[string]Subject
}

// NewRegistry returns a registry holding subjects.
func NewRegistry(subjects ...Subject) (*Registry, error) {
	r := &Registry{m: make(map[string]Subject)}
	for _, s := range subjects {
		if err := r.Register(s); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Register adds s. It fails when the name is empty or taken, or when both
// Open and Configure are nil.
func (r *Registry) Register(s Subject) error {
	if s.Name == "" {
		return errors.New("register subject: empty name")
	}
	if s.Open == nil && s.Configure == nil {
		return fmt.Errorf("register subject %q: nil Open", s.Name)
	}
	if s.Open == nil {
		s.Open = s.Configure(OpenOptions{WatchdogLease: s.WatchdogLease})
	}
	if s.Kind == "" {
		s.Kind = KindUser
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[s.Name]; ok {
		return fmt.Errorf("register subject %q: name already registered", s.Name)
	}
	r.m[s.Name] = s
	return nil
}

// Lookup returns the subject called name, or an error wrapping
// ErrUnknownSubject that lists the known names. A name "A+B" that nobody
// registered is the mix of A and B (Mix).
func (r *Registry) Lookup(name string) (Subject, error) {
	if strings.Contains(name, MixSeparator) {
		r.mu.RLock()
		s, ok := r.m[name]
		r.mu.RUnlock()
		if ok {
			return s, nil
		}
		return r.lookupMix(name)
	}
	r.mu.RLock()
	s, ok := r.m[name]
	r.mu.RUnlock()
	if !ok {
		return Subject{}, fmt.Errorf("%w %q (known: %v)", ErrUnknownSubject, name, r.Names())
	}
	return s, nil
}

// All returns every subject, sorted by kind then name.
func (r *Registry) All() []Subject {
	r.mu.RLock()
	out := make([]Subject, 0, len(r.m))
	for _, s := range r.m {
		out = append(out, s)
	}
	r.mu.RUnlock()
	order := map[Kind]int{KindReference: 0, KindPeer: 1, KindExternal: 2, KindUser: 3, KindMutant: 4}
	sort.Slice(out, func(i, j int) bool {
		if oi, oj := order[out[i].Kind], order[out[j].Kind]; oi != oj {
			return oi < oj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Names returns every subject's name, in All's order.
func (r *Registry) Names() []string {
	var names []string
	for _, s := range r.All() {
		names = append(names, s.Name)
	}
	return names
}

// Subjects is the default registry: lockcheck's reference locks, the peer
// adapters and the mutants. Code outside this module adds its own lock with
// Subjects.Register and can then run every workload and checker against it.
var Subjects = mustRegistry(builtinSubjects())

func mustRegistry(subjects []Subject) *Registry {
	r, err := NewRegistry(subjects...)
	if err != nil {
		panic(err)
	}
	return r
}
