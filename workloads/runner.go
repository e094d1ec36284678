package workloads

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Deps are what a run needs besides its RunConfig: connections, where the
// history goes, the faults to inject.
type Deps struct {
	// Dial opens the go-redis client of client connection i (0 <= i <
	// clients). It is required. Insert a proxy per client here for network
	// faults. The client must not retry commands on its own (MaxRetries: -1;
	// faults.Server.Options and faults.RedisAddr give such options) and
	// should honour ctx deadlines (ContextTimeoutEnabled). The runner closes
	// every client Dial returns.
	Dial func(ctx context.Context, i int) (redis.UniversalClient, error)
	// Registry resolves RunConfig.Subject. It is required: catalog.Subjects
	// holds every lock lockcheck ships; a test may pass a registry of its
	// own (subject.NewRegistry).
	Registry *subject.Registry
	// History receives the history as JSON Lines while the run goes: the
	// header first, then every op as it completes and every fault window as
	// it heals (nil: kept in memory only).
	History io.Writer
	// Meta is added to the history header (the runner sets seed, subject,
	// workload, plan and config).
	Meta map[string]string
	// Nemesis, if set, is called once the clients exist, with the runner's
	// faults.Clients (for client stalls and crashes); the Nemesis it returns
	// runs alongside the workload from the start, its windows recorded in
	// the history on the run's clock. Its schedule should end before
	// Duration: the nemesis is cancelled (and heals everything) when
	// Duration ends.
	Nemesis func(c faults.Clients) (*faults.Nemesis, error)
	// Reconnect, if set, cuts client i's connections for outage — every
	// open connection closed, dials refused (faults.Cutter) — and returns
	// at once; the client then reconnects on its own. Without Wire it
	// reaches lock clients in lockcheck's process only, and a run whose
	// clients are processes of their own (a driver, a served Go lock) has
	// none; with Wire it must cut at the Wire (faults.Wire.Cut, as
	// target.Target's does), which reaches those too. Plans whose long
	// holds have outages (Phases.Outage) need it; without it those holds
	// run without their reconnect (a warning says so).
	Reconnect func(i int, outage time.Duration)
	// Progress receives a progress line once a second when it is a terminal
	// (an *os.File on a TTY); otherwise nothing is written.
	Progress io.Writer
	// Serve, if set, opens a Go subject's lock clients in processes of
	// their own, served over the driver protocol (catalog.ServedBy: by
	// `lockcheck driver NAME`, or a test binary with -locktest.serve): a
	// run with RunConfig.Pauses PausesProcess runs a Go lock so.
	Serve subject.Server
	// Wire, if set, returns the RESP proxies in front of client
	// connection i, once Dial made it (nil: none): a faults.Wire, or a
	// faults.WireSet in front of several servers. The runner traces them
	// (WireTrace, and the checkers' evidence: model.Options.Wire) and
	// lands process pauses on a reply.
	Wire func(i int) faults.ClientWire
	// WireInProcess says the proxies of Wire see only the connections
	// lockcheck's own clients dial (a WireSet's Dialer): a client in a
	// process of its own dials the servers itself, unseen, so its run has
	// no trace.
	WireInProcess bool
	// WireNodes says the proxies of Wire sit in front of the RedLock nodes
	// too (the redlock topology's), so a subject that dials the nodes
	// (subject.NeedsRedlockNodes) is traced; otherwise its run has no
	// trace.
	WireNodes bool
	// WireTrace, if set, receives the wire trace as JSON Lines
	// (model.WireEvent) while the run goes.
	WireTrace io.Writer
	// Probe, if set, reaches Redis with no proxy or link between: the
	// hiccup watcher PINGs it, so that its probes neither suffer a
	// client's faults nor show in a client's wire trace (nil: the first
	// client's connection).
	Probe redis.UniversalClient
}

// Result is a finished run.
type Result struct {
	// Config is the configuration as run (defaults filled in).
	Config RunConfig `json:"config"`
	// Plan is the plan the processes executed.
	Plan Plan `json:"plan"`
	// Subject is the subject's name and capabilities.
	Subject SubjectInfo `json:"subject"`
	// Start is the wall-clock time of the history's time 0.
	Start time.Time `json:"start"`
	// History is everything recorded.
	History *model.History `json:"-"`
	// Report is the checkers' verdict on History.
	Report model.Report `json:"report"`
	// CheckOptions are the options Report was checked with (for a re-check).
	CheckOptions model.Options `json:"check_options"`
	// Stats are counts and rates.
	Stats Stats `json:"stats"`
	// Warnings say why the run may mean less than it seems (no grant at
	// all, a nemesis that failed).
	Warnings []string `json:"warnings,omitempty"`
}

// SubjectInfo describes the subject a run used.
type SubjectInfo struct {
	Name string `json:"name"`
	// Release is the release of its library the subject ran (its pinned
	// one for a bare name; "" when not known without starting it).
	Release       string        `json:"release,omitempty"`
	Kind          subject.Kind  `json:"kind"`
	Reentrant     bool          `json:"reentrant"`
	Fair          bool          `json:"fair"`
	WatchdogLease time.Duration `json:"watchdog_lease"`
	// Parts are the subjects process ids cycle through (model.MetaParts):
	// the parts of a mix, else the subject alone.
	Parts []string `json:"parts"`
}

// Stats are a run's basic figures.
type Stats struct {
	Ops      int `json:"ops"`
	OK       int `json:"ok"`
	Fail     int `json:"fail"`
	Info     int `json:"info"`
	Acquires int `json:"acquires"`
	Granted  int `json:"granted"`
	Releases int `json:"releases"`
	Sections int `json:"sections"`
	Abandons int `json:"abandons"`
	// Expiries counts holds let run out on purpose (model.Expire ops).
	Expiries int `json:"expiries"`
	// Processes is how many process ids were used (initial + replacements).
	Processes int `json:"processes"`
	// Elapsed is from the first op to the end of the run (before checking).
	Elapsed time.Duration `json:"elapsed_ns"`
	// OpsPerSec is Ops / Elapsed.
	OpsPerSec float64 `json:"ops_per_sec"`
	// CheckElapsed is how long model.Check took.
	CheckElapsed time.Duration `json:"check_elapsed_ns"`
}

// Errors Run returns.
var (
	// ErrNoDial is returned when Deps.Dial is nil.
	ErrNoDial = errors.New("workloads: Deps.Dial is nil")
	// ErrNoRegistry is returned when Deps.Registry is nil.
	ErrNoRegistry = errors.New("workloads: Deps.Registry is nil (catalog.Subjects holds the shipped locks)")
	// ErrNoOwners is returned for a plan whose client processes host
	// several owners (Plan.ThreadsPerProcess) on a subject that cannot
	// (subject.Subject.HostsOwners).
	ErrNoOwners = errors.New("workloads: the subject hosts one owner per client process")
	// ErrNoSharedObjects is returned for a plan with shared lock objects
	// (Plan.SharedObjects) on a subject that cannot keep them
	// (subject.Subject.SharesObjects).
	ErrNoSharedObjects = errors.New("workloads: the subject cannot share lock objects (its driver lacks capability shared-objects)")
	// ErrNoCallForms is returned for a plan that varies call forms
	// (Plan.CallForms) on a subject whose driver does not
	// (subject.Subject.VariesForms).
	ErrNoCallForms = errors.New("workloads: the subject has one call form (its driver lacks capability forms)")
	// ErrNotServed is returned for a run of a subject that says it runs
	// only in processes of its own (subject.Served: it has no in-process
	// fault hook) that cannot be served so (no Deps.Serve, or a plan the
	// driver protocol cannot serve).
	ErrNotServed = errors.New("workloads: the subject runs only in processes of its own")
	// ErrNemesis wraps a nemesis failure: the run did not get the faults it
	// asked for. Run still returns the Result.
	ErrNemesis = errors.New("workloads: nemesis failed")
	// ErrHistoryWrite wraps a failure to write the history. Run still
	// returns the Result (the in-memory history is complete).
	ErrHistoryWrite = errors.New("workloads: writing the history failed")
)

// Run executes cfg: N logical processes, each with its own Locker handles
// (lock name, owner token "p<id>") over the clients Dial makes, issue the
// plan's ops for cfg.Duration; every op is bounded by the op timeout and
// recorded as it completes. A process whose op ends as info is retired (its
// handles abandoned, so their renewal stops and whatever they hold runs out
// within one lease) and replaced by a new process id on the same worker.
// Each critical section read-modify-writes a register per lock kept in this
// process (fenced by the handle's token when it has one). At the end, the
// processes release what they hold (bounded by StopTimeout), the Makers
// and clients are closed, and the history is checked with model.Check.
//
// Run returns an error without a Result for a bad config, an unknown
// subject or workload, or a client or Maker that cannot be opened. It
// returns a Result together with an error wrapping ErrNemesis or
// ErrHistoryWrite when the run happened but around it something failed;
// treat such a run as invalid. Cancelling ctx ends the run early: the
// nemesis heals its faults, processes get at most InterruptStopTimeout to
// release what they hold, and the result is checked as usual for at most
// InterruptCheckTimeout (the caller says the run was interrupted).
// Cancelling ctx while the history is checked stops the check: the report
// says so (model.Report.Stopped) and its verdict is Unknown unless a
// violation was found before.
func Run(ctx context.Context, cfg RunConfig, deps Deps) (*Result, error) {
	rc, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	return rc.Run(ctx, deps)
}

// Run is Run of the resolved configuration: it runs rc as it is, without
// checking or resolving it again.
func (rc Resolved) Run(ctx context.Context, deps Deps) (*Result, error) {
	r, err := prepare(ctx, rc, deps)
	if err != nil {
		return nil, err
	}
	defer r.closeClients()
	if err := r.startHistory(deps.History, deps.Meta); err != nil {
		return nil, err
	}
	res := &Result{
		Config: r.cfg, Plan: r.plan, Start: r.base,
		Subject: SubjectInfo{
			Name: r.subj.Name, Release: r.subj.Release, Kind: r.subj.Kind, Reentrant: r.subj.Reentrant, Fair: r.subj.Fair,
			WatchdogLease: r.watchdogLease, Parts: r.subj.PartNames(),
		},
	}
	errs := r.drive(ctx, deps, res)
	r.closeClients()
	r.check(ctx, res)
	return res, errors.Join(errs...)
}

// prepare validates deps, resolves the subject, rounds the resolved
// plan's leases up to the subject's lease granularity and opens the
// clients and Makers: a runner ready to record.
func prepare(ctx context.Context, rc Resolved, deps Deps) (*runner, error) {
	cfg, plan := rc.Config(), rc.Plan()
	if e, ok := faults.EngineFrom(ctx); ok && cfg.Server == "" {
		cfg.Server, cfg.Backend = e.Server+" ("+filepath.Base(e.Bin)+" "+e.Version+")", "process"
		if e.Launcher != nil {
			cfg.Backend = e.Launcher.Name()
		}
	}
	if deps.Dial == nil {
		return nil, ErrNoDial
	}
	if deps.Registry == nil {
		return nil, ErrNoRegistry
	}
	subj, err := deps.Registry.LookupContext(ctx, cfg.Subject)
	if err != nil {
		return nil, err
	}
	if plan.Threads() > 1 && !subj.HostsOwners() {
		return nil, fmt.Errorf("%w: %s (%d threads per process)", ErrNoOwners, subj.Name, plan.Threads())
	}
	if plan.SharedObjects && !subj.SharesObjects() {
		return nil, fmt.Errorf("%w: %s", ErrNoSharedObjects, subj.Name)
	}
	if plan.CallForms && !subj.VariesForms() {
		return nil, fmt.Errorf("%w: %s", ErrNoCallForms, subj.Name)
	}
	plan = plan.withLeaseGranularity(subj.LeaseGranularity).withSides(subj.ReadWrite)
	cfg.MaxWait = model.WaitBound(scaleWithLease(time.Duration(cfg.MaxWait), cfg.WatchdogLease, subj.LeaseGranularity))
	cfg.WatchdogLease = roundUp(cfg.WatchdogLease, subj.LeaseGranularity)
	oo := subject.OpenOptions{WatchdogLease: cfg.WatchdogLease, Seed: cfg.Seed, SharedObjects: plan.SharedObjects}
	if plan.Threads() > 1 {
		oo.Owners = plan.Threads()
	}
	stalls := &driverStalls{}
	oo.OnStall = stalls.record
	makerFuncs, lease := subj.MakerFuncs(oo)
	var warn string
	if subj.Served {
		cfg.Pauses = PausesProcess // no hook reaches it in process
	}
	if cfg.Pauses == PausesProcess {
		served, why, err := servedMakers(subj, plan, oo, deps.Serve)
		if err != nil {
			return nil, err
		}
		if why != "" && subj.Served {
			return nil, fmt.Errorf("%w: %s: %s", ErrNotServed, subj.Name, why)
		}
		if why != "" {
			cfg.Pauses, warn = PausesCooperative, fmt.Sprintf("stalls are cooperative (a stall point between ops), not process pauses: %s cannot run in a process of its own (%s)", subj.Name, why)
		} else {
			makerFuncs = served
		}
	}
	if cfg.Pauses == "" {
		cfg.Pauses = PausesCooperative
	}
	ownProcess := cfg.Pauses == PausesProcess || subj.Kind == subject.KindExternal
	untraced := dropUnseenWires(&deps, ownProcess)
	reconnect := deps.Reconnect
	if ownProcess && deps.Wire == nil {
		// A client in a process of its own dials Redis itself: with no
		// Wire between, cutting the connections of lockcheck's client i
		// reaches none of its own.
		reconnect = nil
	}
	r := newRunner(cfg, plan, subj, lease, reconnect)
	r.stalls, r.warnings = stalls, appendNonEmpty(appendNonEmpty(r.warnings, warn), untraced)
	if cfg.Pauses == PausesProcess {
		r.pauses = newPauser(cfg.Seed)
	}

	nclients := cfg.Clients
	if nclients == 0 {
		nclients = plan.Processes
	}
	if err := r.open(ctx, deps.Dial, makerFuncs, nclients); err != nil {
		r.closeClients()
		return nil, err
	}
	r.warmUp(ctx)
	if subj.Needs == subject.NeedsRedlockNodes && !deps.WireNodes {
		// Its clients dial the nodes, not Dial's connections, nor (unlike
		// the redlock topology's WireSets) through their proxies: a trace
		// of what the Wires saw would say each client sent nothing at all.
		deps.Wire = nil
	}
	r.wire = newWireTracer(wiresOf(deps.Wire, nclients), deps.WireTrace)
	r.probe = deps.Probe
	return r, nil
}

// newRunner returns the state of a run of plan on subj, whose holds taken
// with lease <= 0 last lease: one register per lock (and per side lock of
// cancelled acquires) and the schedule of the plan's phases.
func newRunner(cfg RunConfig, plan Plan, subj subject.Subject, lease time.Duration, reconnect func(int, time.Duration)) *runner {
	r := &runner{
		cfg: cfg, plan: plan, subj: subj, watchdogLease: lease,
		regs:   map[string]*register{},
		prefix: keyPrefix(),
	}
	for _, l := range plan.Locks {
		r.regs[l] = &register{}
		if plan.CancelPercent > 0 {
			r.regs[cancelLock(l)] = &register{}
		}
	}
	r.reconnect = reconnect
	r.sched = scheduleFor(plan.Phases, cfg.Seed, cfg.Duration, lease, !subj.NoWatchdog, reconnect != nil, subj.ReadWrite)
	return r
}

// startHistory sets the run's time 0 and starts recording the history to
// w (nil: in memory only), its header carrying the run's meta and extra.
func (r *runner) startHistory(w io.Writer, extra map[string]string) error {
	meta := r.meta(extra)
	r.base = time.Now()
	rec, err := model.NewRecorder(w, model.Header{Meta: meta, Ends: true, Object: model.ObjectLock})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrHistoryWrite, err)
	}
	r.rec = rec
	r.tracker = newFaultTracker(r)
	r.stalls.start(rec, r.base)
	r.wire.start(r.base)
	return nil
}

// drive runs the plan and ends the history. It returns what went wrong
// around the run (the nemesis, writing the history); each is also one of
// res's warnings.
func (r *runner) drive(ctx context.Context, deps Deps, res *Result) []error {
	var errs []error
	res.Warnings = append(append(res.Warnings, r.warnings...), r.phaseWarnings()...)
	if err := r.execute(ctx, deps); err != nil {
		errs = append(errs, err)
		res.Warnings = append(res.Warnings, err.Error())
	}
	if err := r.wire.stop(); err != nil {
		res.Warnings = append(res.Warnings, err.Error())
	}
	// The end record: a history without one is a run that was killed, and
	// one that says interrupted is a run that was stopped early.
	_ = r.rec.End(model.End{Interrupted: ctx.Err() != nil, At: r.now()})
	if err := r.rec.Err(); err != nil {
		err = fmt.Errorf("%w: %w", ErrHistoryWrite, err)
		errs = append(errs, err)
		res.Warnings = append(res.Warnings, err.Error())
	}
	return errs
}

// check fills res's history, stats and report: the checkers' verdict with
// the options the run's subject and plan call for.
func (r *runner) check(ctx context.Context, res *Result) {
	res.History = r.rec.History()
	res.Stats = r.stats(res.History)
	res.CheckOptions = model.Options{
		Timeout:       r.cfg.CheckTimeout,
		WatchdogLease: r.watchdogLease,
		NoWatchdog:    r.subj.NoWatchdog,
		Fair:          r.subj.Fair,
		TTLWakeups:    r.subj.TTLWakeups,
		SplitVotes:    r.subj.SplitVotes,
		AttemptsHold:  r.subj.AttemptsHold,
		QueueTimeout:  r.subj.QueueTimeout,
		WaitSpent:     r.subj.WaitSpent,
		SplitWait:     r.subj.SplitWait,
		MaxWait:       r.cfg.MaxWait,
		FreeWait:      r.cfg.freeWait(&r.plan),
		OpTimeout:     r.plan.OpTimeout,
		LossyFaults:   r.cfg.LossyFaults,
		Reconnect:     reconnect(r.subj),
		ReplyTimeout:  r.subj.ReplyTimeout,
		Wire:          r.wire.trace(),
	}
	start := time.Now()
	cctx, cancel := checkContext(ctx)
	res.Report = model.CheckContext(cctx, res.History, res.CheckOptions)
	cancel()
	res.Stats.CheckElapsed = time.Since(start)
}

// dropUnseenWires drops deps' Wires when they see only in-process clients
// (Deps.WireInProcess) and the run's clients are in processes of their
// own, which dial the servers themselves: a trace would say each client
// sent nothing at all. It returns the run's warning ("": none dropped).
func dropUnseenWires(deps *Deps, ownProcess bool) string {
	if !ownProcess || !deps.WireInProcess || deps.Wire == nil {
		return ""
	}
	deps.Wire = nil
	return "no wire trace: the clients run in processes of their own and dial this topology's servers themselves, " +
		"so the checkers take each drop's reconnection as a constant"
}

// appendNonEmpty appends s to ss unless it is empty.
func appendNonEmpty(ss []string, s string) []string {
	if s == "" {
		return ss
	}
	return append(ss, s)
}

// reconnect is the checker's Options.Reconnect for subj: none for a client
// lockcheck configures (it retries on a fresh connection at once), the
// default for a client of the lock's own.
func reconnect(subj subject.Subject) time.Duration {
	if subj.ConfiguredClient() {
		return -1
	}
	return 0
}

// InterruptCheckTimeout bounds the check of an interrupted run's prefix:
// the run was told to stop, so its check stops soon too (the history on
// disk can be re-checked in full).
const InterruptCheckTimeout = time.Second

// checkContext is the context of the check after a run under ctx: ctx
// itself (ending it stops the check), or for a run that ctx already
// interrupted, one that lasts InterruptCheckTimeout.
func checkContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(context.WithoutCancel(ctx), InterruptCheckTimeout, context.Cause(ctx))
}

// runner is one run's state.
type runner struct {
	cfg           RunConfig
	warnings      []string      // said before the run starts (Result.Warnings)
	wire          *wireTracer   // nil: no wire trace
	pauses        *pauser       // process pauses (nil: cooperative stalls)
	stalls        *driverStalls // drivers' own stalls, recorded as hiccups
	plan          Plan
	subj          subject.Subject
	watchdogLease time.Duration
	prefix        string // Redis key prefix of this run's locks

	rdbs   []redis.UniversalClient
	probe  redis.UniversalClient // Deps.Probe
	makers [][]impl.Maker        // per client connection, one Maker per part
	closed bool

	base    time.Time
	rec     *model.Recorder
	regs    map[string]*register
	tracker *faultTracker
	workers []*worker
	// sched is the run's phases (nil: the plan's mix throughout);
	// reconnect is Deps.Reconnect.
	sched      schedule
	reconnect  func(i int, outage time.Duration)
	nextPID    atomic.Int64
	nextClient atomic.Int64
	clients    clientsOf                // process id -> client process (grouped owners)
	long       atomic.Pointer[longHold] // the long hold in its section (takeover.go)

	// live counters for the progress line
	nOps, nOK, nFail, nInfo atomic.Int64
}

// open dials the clients and opens on each one Maker per part.
func (r *runner) open(ctx context.Context, dial func(context.Context, int) (redis.UniversalClient, error), mfs []impl.MakerFunc, n int) error {
	for i := range n {
		rdb, err := dial(ctx, i)
		if err != nil {
			return fmt.Errorf("dial client %d: %w", i, err)
		}
		if rdb == nil {
			return fmt.Errorf("dial client %d: nil client", i)
		}
		r.rdbs = append(r.rdbs, rdb)
		var ms []impl.Maker
		for j, mf := range mfs {
			m, err := mf(ctx, rdb)
			if err != nil {
				r.makers = append(r.makers, ms)
				return fmt.Errorf("open %s on client %d: %w", r.subj.PartNames()[j], i, err)
			}
			ms = append(ms, m)
		}
		r.makers = append(r.makers, ms)
	}
	return r.ready(ctx)
}

// ready waits for every Maker that starts its clients ahead of use
// (impl.Readier), all at once.
func (r *runner) ready(ctx context.Context) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, ms := range r.makers {
		for _, m := range ms {
			if rd, ok := m.(impl.Readier); ok {
				wg.Go(func() {
					if err := rd.Ready(ctx); err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				})
			}
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// closeClients closes the Makers (stopping every watchdog without unlocking)
// and then the clients. It is idempotent.
func (r *runner) closeClients() {
	if r.closed {
		return
	}
	r.closed = true
	for _, ms := range r.makers {
		for _, m := range ms {
			_ = m.Close()
		}
	}
	for _, c := range r.rdbs {
		_ = c.Close()
	}
}

func (r *runner) meta(extra map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range extra {
		m[k] = v
	}
	planJSON, _ := json.Marshal(r.plan)
	cfgJSON, _ := json.Marshal(r.cfg)
	m["seed"] = strconv.FormatInt(r.cfg.Seed, 10)
	m["subject"] = r.subj.Name
	m["workload"] = r.plan.Workload
	m["plan"] = string(planJSON)
	m["config"] = string(cfgJSON)
	m["watchdog_lease"] = r.watchdogLease.String()
	m["fair"] = strconv.FormatBool(r.subj.Fair)
	m["key_prefix"] = r.prefix
	m[model.MetaParts] = strings.Join(r.subj.PartNames(), ",")
	m["start"] = time.Now().UTC().Format(time.RFC3339Nano)
	return m
}

// phaseNow returns the run's current phase (nil: no phases).
func (r *runner) phaseNow() *phase { return r.sched.at(time.Duration(r.now())) }

// now is the run's clock: nanoseconds since base (monotonic).
func (r *runner) now() int64 { return int64(time.Since(r.base)) }

// at converts a wall time taken in this process to the run's clock.
func (r *runner) at(t time.Time) int64 { return int64(t.Sub(r.base)) }

// record records op (info ops may be held back until faults heal), with
// the client process its owner ran in.
func (r *runner) record(o model.Op) {
	o.Client = r.clients.get(o.Process)
	o.Also = r.alsoOf(o)
	r.nOps.Add(1)
	switch o.Outcome {
	case model.OK:
		r.nOK.Add(1)
	case model.Fail:
		r.nFail.Add(1)
	case model.Info:
		r.nInfo.Add(1)
	}
	if o.Outcome == model.Info {
		r.tracker.recordInfo(o)
		return
	}
	_ = r.rec.Op(o) // errors are sticky in rec.Err
}

// execute runs the workers, the nemesis and the progress line, and stops
// them all.
func (r *runner) execute(ctx context.Context, deps Deps) error {
	runCtx, cancelRun := context.WithTimeout(ctx, r.cfg.Duration)
	defer cancelRun()
	// hard ends every op of every process: cancelled StopTimeout after the
	// workers were told to stop, or when ctx ends... after StopTimeout too,
	// so that a cancelled run still releases what it holds.
	hard, cancelHard := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelHard()
	stop, cancelStop := context.WithCancel(context.Background())
	defer cancelStop()

	r.makeGroups(hard, stop)

	var nem *faults.Nemesis
	if deps.Nemesis != nil {
		n, err := deps.Nemesis(clients{r})
		if err != nil {
			return fmt.Errorf("%w: %w", ErrNemesis, err)
		}
		nem = n
		r.tracker.wrap(nem)
	}

	var wg sync.WaitGroup
	for _, w := range r.workers {
		wg.Go(w.run)
	}
	var nemErr error
	nemDone := make(chan struct{})
	if nem != nil {
		go func() {
			defer close(nemDone)
			nemErr = nem.Run(runCtx)
		}()
	} else {
		close(nemDone)
	}
	prog := startProgress(deps.Progress, r)
	hic := watchHiccups(r)

	<-runCtx.Done()
	<-nemDone // the nemesis heals everything before it returns
	for _, w := range r.workers {
		w.unstall()
	}
	cancelStop()
	workersDone := make(chan struct{})
	go func() { wg.Wait(); close(workersDone) }()
	select {
	case <-workersDone:
	case <-time.After(r.stopTimeout(ctx)):
		cancelHard()
		<-workersDone
	}
	prog.stop()
	hic.stop()
	r.tracker.flush()
	if nemErr != nil && (ctx.Err() == nil || !errors.Is(nemErr, ctx.Err())) {
		// (a nemesis cut short by an interrupt did not fail: the run was
		// stopped, which the end record says)
		return fmt.Errorf("%w: %w", ErrNemesis, nemErr)
	}
	return nil
}

// InterruptStopTimeout bounds how long the processes of an interrupted run
// (ctx ended before Duration) get to release what they hold before their
// ops are cut off, when it is shorter than RunConfig.StopTimeout: a user
// who pressed Ctrl-C wants the run to end now, and a process blocked on a
// faulted Redis would otherwise hold the run for the whole StopTimeout.
const InterruptStopTimeout = 500 * time.Millisecond

// stopTimeout is how long processes get to stop: StopTimeout, or at most
// InterruptStopTimeout once ctx has ended.
func (r *runner) stopTimeout(ctx context.Context) time.Duration {
	if ctx.Err() != nil {
		return min(r.cfg.StopTimeout, InterruptStopTimeout)
	}
	return r.cfg.StopTimeout
}

// stats counts the history.
func (r *runner) stats(h *model.History) Stats {
	s := Stats{Processes: int(r.nextPID.Load())}
	var last int64
	for _, o := range h.Ops {
		s.Ops++
		last = max(last, o.Return)
		if o.Kind == model.Abandon {
			s.Abandons++
			continue
		}
		if o.Kind == model.Expire {
			s.Expiries++
			continue
		}
		switch o.Outcome {
		case model.OK:
			s.OK++
		case model.Fail:
			s.Fail++
		case model.Info:
			s.Info++
		}
		switch o.Kind {
		case model.Acquire:
			s.Acquires++
			if o.Outcome == model.OK {
				s.Granted++
			}
		case model.Release:
			s.Releases++
		case model.Section:
			s.Sections++
		}
	}
	s.Elapsed = time.Duration(last)
	if last > 0 {
		s.OpsPerSec = float64(s.Ops) / s.Elapsed.Seconds()
	}
	return s
}

// keyPrefix returns a fresh prefix for this run's lock keys, so that runs on
// a shared Redis never meet each other's (or a crashed run's) keys.
func keyPrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "lockcheck:" + hex.EncodeToString(b[:]) + ":"
}
