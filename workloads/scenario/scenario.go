// Package scenario is lockcheck's catalog of named scenarios: a workload, a
// topology (the Redis deployment and the network path of every client) and a
// schedule of faults, each with the verdict it must produce for every kind of
// subject. Safe scenarios must pass with the reference locks; known-unsafe
// ones must be detected (and the report explains each violation with the
// overlapping fault and the lease).
//
// A Scenario is plain data plus two functions: its Topology builds the world
// (a redis-server with the scenario's persistence and one toxiproxy proxy per
// client connection, or any other deployment) and its Faults draw the
// nemesis's faults and schedule from that world and the run's seed. New
// topologies (Sentinel, Cluster, RedLock nodes, nftables partitions) are new
// entries of the same shape.
//
// Matrix runs every scenario × subject × seed and compares each verdict with
// its expectation (`lockcheck nightly`, `lockcheck scoreboard`); package
// results renders the outcomes (matrix.md, report, scoreboard). FaultClass
// groups the scenarios by what breaks, and Expect.Tolerated says which
// violations a scenario breaks in any lease lock by design.
package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Scenario is one named scenario.
type Scenario struct {
	// Name identifies it on the command line and in run directories.
	Name string
	// Doc is a one-line description.
	Doc string
	// Safe says the reference locks must pass it; otherwise it is known
	// unsafe and every lock must be caught.
	Safe bool
	// Plan is the workload every run of the scenario executes (the seed
	// draws each process's ops, the faults' targets and times).
	Plan workloads.Plan
	// Duration is how long a run lasts unless the caller asks otherwise.
	// The fault schedule is drawn for the duration actually run.
	Duration time.Duration
	// WatchdogLease is the lease of watchdog-renewed holds (0: 1.5 s).
	WatchdogLease time.Duration
	// MaxWait, if > 0, makes the liveness checker flag an acquire that
	// waited longer outside every fault window; 0 leaves the bound derived
	// from the leases (see workloads.RunConfig.MaxWait); < 0 turns it off.
	MaxWait model.WaitBound
	// LossyFaults names the faults that may make Redis forget locks, for
	// the explanations of violations (nil: model.DefaultLossyFaults).
	LossyFaults []string
	// Topology builds the world of one run for the given number of client
	// connections.
	Topology Topology
	// Faults, if set, draws the faults and their schedule for one run.
	Faults FaultsFunc
	// Expect, if set, overrides DefaultExpect for some subjects.
	Expect func(s subject.Subject) (Expect, bool)
	// Owners are the checkers that own the property an unsafe scenario
	// breaks: each must fire for every subject whose expectation detects
	// and names no checker (nil: DefaultOwners). See OwnedBy.
	Owners []string
	// Destroys are checkers whose property an unsafe scenario's fault
	// takes away by design, for every lock: a restart that forgets every
	// key forgets the fencing counter too, so tokens start over. Their
	// violations are tolerated there (Expect.MayBreak), never required.
	Destroys []string
	// Skip, if set, says why s cannot run on this scenario ("" : it can).
	// Nil means DefaultSkip.
	Skip func(s subject.Subject) string
	// Permits says its faults act on the semaphores and latches of package
	// permits too (RunPermitsInto): a single server, its links and wires,
	// the workers. A correct object must stay valid under every one of
	// them: none loses the server's data, and the permit checkers allow
	// what a fault implies for objects without owners (an info op may or
	// may not have run, until the fault's heal plus an op timeout; a wait
	// is excused inside fault windows).
	Permits bool
	// Pauses says its faults pause client processes (client stalls): its
	// runs serve Go locks in processes of their own, so that a stall is a
	// real SIGSTOP wherever the lock's threads are (workloads.PausesProcess)
	// when Options.Serve can serve the subject.
	Pauses bool
	// Mixes names the scenarios whose faults this one's nemesis draws
	// from, one a window: a run of it meets each of their triggers. A
	// hunt deals such scenarios every other scenario draw (nil: one fault
	// kind).
	Mixes []string
}

// FaultsFunc draws a run's faults and schedule from its world. The schedule
// must end before w.Duration (the nemesis heals everything when the run
// ends anyway).
type FaultsFunc func(w World) ([]faults.Fault, faults.Schedule, error)

// World is what a FaultsFunc draws from.
type World struct {
	// Env is the run's topology.
	Env *Env
	// Clients acts on the runner's workers ("w0" ..): stalls and crashes.
	Clients faults.Clients
	// Rand is seeded from the run's seed: every random choice of a
	// scenario's faults comes from it.
	Rand *rand.Rand
	// Holders reports which worker holds a lock, from the history as it
	// is written.
	Holders *Holders
	// Duration is how long the run lasts.
	Duration time.Duration
}

// Expectation returns what s must produce under this scenario. On an
// unsafe scenario a detecting expectation names the checkers that must fire
// (the scenario's Owners unless it says otherwise) and the bystanders that
// must not (OwnedBy): "invalid for any reason" is not a detection.
//
// A subject of a kind with a runner of its own (RunnerOf: a semaphore, a
// latch) must show what its runner expects (Runner.Expectation).
func (sc Scenario) Expectation(s subject.Subject) Expect {
	if r, ok := RunnerOf(s); ok {
		return r.Expectation(sc, s)
	}
	if why := sc.skip(s); why != "" {
		return Expect{Label: "skipped", Skip: why}
	}
	e, ok := Expect{}, false
	if sc.Expect != nil {
		e, ok = sc.Expect(s)
	}
	if !ok {
		e = DefaultExpect(sc.Safe, s)
	}
	if sc.Safe {
		return e
	}
	owners := sc.Owners
	if owners == nil {
		owners = DefaultOwners
	}
	e = OwnedBy(e, owners, s)
	e.MayBreak = append(slices.Clip(e.MayBreak), sc.Destroys...)
	return e
}

// Options are one run of a scenario.
type Options struct {
	// Subject names the lock (see catalog.Subjects).
	Subject string
	// Seed drives every random choice (0 is a valid seed).
	Seed int64
	// Duration, if > 0, replaces the scenario's Duration.
	Duration time.Duration
	// CheckTimeout bounds the linearizability check (0: the runner's 60 s).
	CheckTimeout time.Duration
	// Registry resolves Subject (nil: catalog.Subjects).
	Registry *subject.Registry
	// History, if set, receives the history as JSON Lines while the run goes.
	History io.Writer
	// WireTrace, if set, receives the wire trace (model.WireEvent) as JSON
	// Lines while the run goes, in topologies with Wires.
	WireTrace io.Writer
	// Serve, if set, opens a Go subject's lock clients in processes of
	// their own (workloads.Deps.Serve; nil: catalog.SelfServer, the
	// binary's own when it can): scenarios that pause clients (Pauses)
	// then pause Go locks for real.
	Serve subject.Server
	// Served runs the subject's lock clients in processes of their own
	// (workloads.PausesProcess) whatever the scenario: for locks whose
	// handles cannot be abandoned in process (no impl.Abandoner), whose
	// crashed or retired clients only a killed process stops.
	Served bool
	// Progress is passed to the runner (see workloads.Deps).
	Progress io.Writer
	// ThreadsPerProcess, if > 0, replaces the plan's: each of its client
	// processes hosts that many owners (workloads.Plan.ThreadsPerProcess).
	ThreadsPerProcess int
}

// ErrUnknownScenario is returned by Lookup for a name not in the catalog.
var ErrUnknownScenario = errors.New("unknown scenario")

// Prepared is a scenario's world for one run: the run configuration and the
// runner's dependencies. Close tears the world down (the nemesis heals its
// faults before the run returns; Close then kills the redis-server).
type Prepared struct {
	Scenario Scenario
	Config   workloads.RunConfig
	// Resolved is Config validated and resolved once: what to run.
	Resolved workloads.Resolved
	Deps     workloads.Deps
	Env      *Env
}

// Close releases the world.
func (p *Prepared) Close() error { return p.Env.Close() }

// Config returns the RunConfig of a run of sc with o (defaults filled in).
func (sc Scenario) Config(o Options) workloads.RunConfig {
	cfg := workloads.DefaultRunConfig()
	plan := sc.Plan
	plan.Locks = append([]string(nil), plan.Locks...)
	if plan.Workload == "" {
		plan.Workload = sc.Name
	}
	if o.ThreadsPerProcess > 0 {
		plan.ThreadsPerProcess = o.ThreadsPerProcess
	}
	cfg.Subject, cfg.Workload, cfg.Seed, cfg.Plan = o.Subject, plan.Workload, o.Seed, &plan
	cfg.Duration = sc.Duration
	if o.Duration > 0 {
		cfg.Duration = o.Duration
	}
	if sc.WatchdogLease > 0 {
		cfg.WatchdogLease = sc.WatchdogLease
	}
	cfg.MaxWait = sc.MaxWait
	cfg.LossyFaults = sc.LossyFaults
	if o.CheckTimeout > 0 {
		cfg.CheckTimeout = o.CheckTimeout
	}
	if sc.Pauses || o.Served {
		cfg.Pauses = workloads.PausesProcess
	}
	return cfg
}

// Prepare builds the world of one run: the topology with one client
// connection per process, the nemesis drawn from the seed, and the
// runner's dependencies. On success the caller runs p.Resolved.Run(ctx,
// p.Deps) (or its RunInto) and then calls p.Close.
func (sc Scenario) Prepare(ctx context.Context, o Options) (*Prepared, error) {
	cfg := sc.Config(o)
	rc, err := cfg.Resolve()
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	if sc.Topology == nil {
		return nil, fmt.Errorf("scenario %s: no topology", sc.Name)
	}
	env, err := sc.Topology(ctx, cfg.Plan.Processes)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	cfg.Redis = env.Desc
	reg, err := env.registry(o.Registry)
	if err != nil {
		_ = env.Close()
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	holders := newHolders(cfg.Plan.Owners())
	deps := workloads.Deps{
		Dial:     env.Dial,
		Registry: reg,
		History:  holders.tee(o.History),
		Meta:     map[string]string{"scenario": sc.Name},
		Progress: o.Progress,
		Serve:    o.serve(),
		Probe:    env.Admin,
	}
	if len(env.Wires) > 0 || len(env.WireSets) > 0 {
		deps.Wire, deps.WireTrace = env.clientWire, o.WireTrace
		deps.WireInProcess, deps.WireNodes = env.WireInProcess, env.WireNodes
	}
	if sc.Faults != nil {
		duration := cfg.Duration
		seed := o.Seed
		deps.Nemesis = func(c faults.Clients) (*faults.Nemesis, error) {
			holders.follow(c)
			return sc.nemesis(World{Env: env, Clients: c, Rand: faultRand(seed), Holders: holders, Duration: duration})
		}
	}
	return &Prepared{Scenario: sc, Config: cfg, Resolved: rc.On(env.Desc), Deps: deps, Env: env}, nil
}

// serve is o.Serve, or the binary's own (catalog.SelfServer) when unset.
func (o Options) serve() subject.Server {
	if o.Serve != nil {
		return o.Serve
	}
	return catalog.SelfServer()
}

// faultRand is the random source of a run's faults, from the run's seed.
func faultRand(seed int64) *rand.Rand { return rand.New(rand.NewPCG(uint64(seed), 0x5CE7A410)) }

// nemesis draws sc's faults in w, checked by w's health check.
func (sc Scenario) nemesis(w World) (*faults.Nemesis, error) {
	fs, sched, err := sc.Faults(w)
	if err != nil {
		return nil, err
	}
	return &faults.Nemesis{Faults: fs, Schedule: sched, Health: w.Env.Health}, nil
}

// Run prepares the world, runs the scenario once and tears the world down.
// Its errors are workloads.Run's (a Result with an error wrapping
// workloads.ErrNemesis means the run did not get its faults: treat it as
// invalid) or the topology's.
func (sc Scenario) Run(ctx context.Context, o Options) (*workloads.Result, error) {
	p, err := sc.Prepare(ctx, o)
	if err != nil {
		return nil, err
	}
	res, err := p.Resolved.Run(ctx, p.Deps)
	if cerr := p.Close(); cerr != nil && err == nil && res != nil {
		res.Warnings = append(res.Warnings, "closing the topology: "+cerr.Error())
	}
	return res, err
}
