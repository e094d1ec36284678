package workloads

import (
	"errors"
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// RunConfig is one run: what to run, against what, for how long, with which
// seed. It is plain data (JSON) so a run directory can store it verbatim and
// `lockcheck check` or a rerun can read it back.
type RunConfig struct {
	// Subject names the lock implementation, resolved in Deps.Registry.
	Subject string `json:"subject"`
	// Workload names the workload whose Generate(Seed) gives the plan.
	Workload string `json:"workload"`
	// Seed drives every random choice: the plan and each process's ops.
	Seed int64 `json:"seed"`
	// Duration is how long processes start new ops; the run then finishes
	// the critical sections in progress and stops.
	Duration time.Duration `json:"duration"`
	// Clients is the number of go-redis clients (each with its own Maker:
	// its own Redisson client id and pub/sub connection); client processes
	// are spread over them round-robin. 0: one client per client process
	// (with Plan.ThreadsPerProcess > 1, Clients must be 0 or the plan's
	// Processes: each client process is one lock client).
	Clients int `json:"clients"`
	// Plan, if set, replaces the workload's generated plan.
	Plan *Plan `json:"plan,omitempty"`
	// OpTimeout, if > 0, replaces the plan's op timeout.
	OpTimeout time.Duration `json:"op_timeout,omitempty"`
	// ThreadsPerProcess, if > 0, replaces the plan's (Plan.ThreadsPerProcess):
	// each of its client processes hosts that many owners.
	ThreadsPerProcess int `json:"threads_per_process,omitempty"`
	// SharedObjects, if true, sets the plan's (Plan.SharedObjects): each
	// client process keeps one lock object per name.
	SharedObjects bool `json:"shared_objects,omitempty"`
	// CallForms, if true, sets the plan's (Plan.CallForms): acquires and
	// releases draw the library's call form.
	CallForms bool `json:"call_forms,omitempty"`
	// Pauses is how a client stall reaches the lock's client:
	// PausesCooperative ("" is it too) or PausesProcess. A run asked for
	// process pauses of a subject it cannot serve in a process of its own
	// runs cooperative, and records so here and in a warning.
	Pauses string `json:"pauses,omitempty"`
	// CheckTimeout bounds the linearizability check (0: 60 s).
	CheckTimeout time.Duration `json:"check_timeout,omitempty"`
	// WatchdogLease is the lease of holds taken with lease <= 0, given to
	// subjects that take run settings (Subject.Configure). Short leases make
	// the holds of retired processes run out fast. Default 1.5 s.
	WatchdogLease time.Duration `json:"watchdog_lease"`
	// MaxWait bounds waits for the liveness checker (model.WaitBound: the
	// zero value derives it from the run's leases, model.WaitOff turns it
	// off, > 0 sets it). A bound > 0 is taken to be set in watchdog leases: when
	// the subject's lease granularity rounds WatchdogLease up, MaxWait grows
	// by the same factor.
	MaxWait model.WaitBound `json:"max_wait,omitempty"`
	// FreeWait, > 0, also bounds each acquire's longest continuous stretch
	// of waiting on a free lock outside faults (model.Options.FreeWait): a
	// missed wake-up, made visible by the quiet phases of a plan's Phases.
	// 0: HuntFreeWait for a plan with quiet phases, else none; < 0: none.
	// The CLI and the library judge the same config alike.
	FreeWait time.Duration `json:"free_wait,omitempty"`
	// InFlight is how long a request may still reach Redis after its client
	// gave up on it; it is added to the deadline of every info op (which is
	// also held back to the end of any fault active when it returned).
	// Default 100 ms.
	InFlight time.Duration `json:"in_flight"`
	// StopTimeout bounds the end of the run: after Duration, processes get
	// this long to release what they hold before their ops are cut off
	// (ending as info). Default 10 s.
	StopTimeout time.Duration `json:"stop_timeout"`
	// LossyFaults names the faults that may make Redis forget locks (a
	// kill without persistence, a failover), so the explanation of a
	// violation can blame them (nil: model.DefaultLossyFaults; empty: none).
	// A topology that survives kills (appendfsync always) leaves its kill
	// fault out.
	LossyFaults []string `json:"lossy_faults,omitempty"`
	// Redis describes the target, for the record only (the caller's Dial
	// decides where clients connect). Never put a password here.
	Redis string `json:"redis,omitempty"`
	// Server is the server lockcheck started for the run, and its version
	// ("valkey-8.1 (valkey-server 8.1.8)"); Backend is where it ran
	// ("process", "container"). Both come from the faults.Engine of the
	// run's ctx when left empty, and stay empty on a Redis lockcheck did
	// not start.
	Server  string `json:"server,omitempty"`
	Backend string `json:"backend,omitempty"`
}

// DefaultRunConfig returns the configuration of `lockcheck run` without
// flags: the reentrant lock, the default workload, seed 1, 30 s.
func DefaultRunConfig() RunConfig {
	return RunConfig{
		Subject:       "reentrant",
		Workload:      DefaultWorkload,
		Seed:          1,
		Duration:      30 * time.Second,
		CheckTimeout:  60 * time.Second,
		WatchdogLease: 1500 * time.Millisecond,
		InFlight:      100 * time.Millisecond,
		StopTimeout:   10 * time.Second,
	}
}

// withDefaults fills zero fields that have a default.
func (c RunConfig) withDefaults() RunConfig {
	d := DefaultRunConfig()
	if c.WatchdogLease == 0 {
		c.WatchdogLease = d.WatchdogLease
	}
	if c.InFlight == 0 {
		c.InFlight = d.InFlight
	}
	if c.StopTimeout == 0 {
		c.StopTimeout = d.StopTimeout
	}
	if c.CheckTimeout == 0 {
		c.CheckTimeout = d.CheckTimeout
	}
	return c
}

// ResolvePlan returns the plan the run executes: Plan if set, else the
// workload's plan for Seed, with OpTimeout, ThreadsPerProcess,
// SharedObjects and CallForms applied.
func (c RunConfig) ResolvePlan() (Plan, error) {
	var p Plan
	if c.Plan != nil {
		p = *c.Plan
		p.Locks = append([]string(nil), p.Locks...)
		if p.Workload == "" {
			p.Workload = c.Workload
		}
	} else {
		w, err := LookupWorkload(c.Workload)
		if err != nil {
			return Plan{}, err
		}
		p = w.Generate(c.Seed)
	}
	if c.OpTimeout > 0 {
		p.OpTimeout = c.OpTimeout
	}
	if c.ThreadsPerProcess > 0 {
		p.ThreadsPerProcess = c.ThreadsPerProcess
	}
	p.SharedObjects = p.SharedObjects || c.SharedObjects
	p.CallForms = p.CallForms || c.CallForms
	return p, p.Validate()
}

// Resolved is a run configuration validated once, with its defaults
// filled in and its plan resolved (RunConfig.Resolve): Resolved.Run and
// Resolved.RunInto run it without checking or resolving it again. Its zero
// value is not a run; only Resolve makes one.
type Resolved struct {
	cfg  RunConfig
	plan Plan
}

// Config is the validated configuration, its defaults filled in.
func (r Resolved) Config() RunConfig { return r.cfg }

// Plan is the plan the run executes (ResolvePlan's), a copy of its own.
func (r Resolved) Plan() Plan {
	p := r.plan
	p.Locks = append([]string(nil), p.Locks...)
	return p
}

// On is r recorded as run against the Redis desc (RunConfig.Redis, never a
// password): where a run goes changes nothing Resolve checked.
func (r Resolved) On(desc string) Resolved {
	r.cfg.Redis = desc
	return r
}

// Resolve validates c (after defaults), including a plan that cannot run,
// and resolves its plan: the one check of a run's configuration. Its
// error names the first thing wrong.
func (c RunConfig) Resolve() (Resolved, error) {
	c = c.withDefaults()
	switch {
	case c.Subject == "":
		return Resolved{}, errors.New("run config: no subject")
	case c.Workload == "" && c.Plan == nil:
		return Resolved{}, errors.New("run config: no workload")
	case c.Duration <= 0:
		return Resolved{}, fmt.Errorf("run config: duration = %v, want > 0", c.Duration)
	case c.ThreadsPerProcess < 0:
		return Resolved{}, fmt.Errorf("run config: threads_per_process = %d, want >= 0 (0: the plan's)", c.ThreadsPerProcess)
	case c.Clients < 0:
		return Resolved{}, fmt.Errorf("run config: clients = %d, want >= 0 (0: one per process)", c.Clients)
	case c.OpTimeout < 0, c.CheckTimeout < 0, c.InFlight < 0, c.StopTimeout < 0, c.WatchdogLease < 0:
		return Resolved{}, errors.New("run config: negative timeout")
	case c.Pauses != "" && c.Pauses != PausesCooperative && c.Pauses != PausesProcess:
		return Resolved{}, fmt.Errorf("run config: pauses = %q, want %q or %q", c.Pauses, PausesCooperative, PausesProcess)
	}
	p, err := c.ResolvePlan()
	if err != nil {
		return Resolved{}, fmt.Errorf("run config: %w", err)
	}
	if p.Threads() > 1 && c.Clients != 0 && c.Clients != p.Processes {
		return Resolved{}, fmt.Errorf("run config: clients = %d with %d threads per process: each of the %d client processes is one lock client (want 0 or %d)", c.Clients, p.Threads(), p.Processes, p.Processes)
	}
	if p.Lease == 0 && !p.LongHolds && p.Hold.Max*4 > c.WatchdogLease {
		return Resolved{}, fmt.Errorf("run config: hold up to %v is not far shorter than the watchdog lease %v", p.Hold.Max, c.WatchdogLease)
	}
	return Resolved{cfg: c, plan: p}, nil
}

// Validate reports the first thing wrong with c (Resolve's error).
func (c RunConfig) Validate() error {
	_, err := c.Resolve()
	return err
}

// freeWait is the free-wait bound the checks of a run of plan use (see
// FreeWait): quiet phases show missed wake-ups, so a plan that has them is
// bound by HuntFreeWait unless the config says otherwise.
func (c RunConfig) freeWait(plan *Plan) time.Duration {
	switch {
	case c.FreeWait > 0:
		return c.FreeWait
	case c.FreeWait == 0 && plan.Phases != nil && plan.Phases.Quiet.Max > 0:
		return HuntFreeWait
	}
	return 0
}
