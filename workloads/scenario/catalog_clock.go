package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// ClockJump is how far the clock-jump scenarios move a server's clock:
// more than the Lease, so every lock key on it expires at once (forward)
// or outlives its lease by that much (backward).
const ClockJump = 3 * time.Second

// clockLossy are the lossy faults of the clock scenarios that move a
// server's clock forward: a forward jump (or a fast clock) makes Redis
// expire the locks it holds, as a restart without persistence forgets them.
var clockLossy = append(slices.Clone(model.DefaultLossyFaults), "clock-jump", "clock-drift")

// clockScenarios are the clock-fault scenarios (issue 23): server clocks
// through the LD_PRELOAD shim, client clocks in process (impl.Clock).
func clockScenarios() []Scenario {
	return []Scenario{
		{
			Name: "clock-strobe", Safe: true,
			Doc: "redis-server's clock strobes between −250 ms and +250 ms every 5 ms, for 0.5–1 s at a time, during the contended workload: " +
				"a 500 ms swing, half of the 1 s that a watchdog renewal (every third of the 1.5 s lease) leaves in hand",
			Plan: contendedPlan(), Duration: 6 * time.Second, Topology: ShimmedServer(faults.PersistNone),
			Faults: serverClockFault(func(c []faults.Offsetter, target string) faults.Fault {
				return faults.ClockStrobe(c, target, -250*time.Millisecond, 250*time.Millisecond, 5*time.Millisecond)
			}, faults.Range{Min: ms(500), Max: ms(1000)}, faults.Range{Min: ms(500), Max: ms(1000)}),
		},
		{
			Name: "clock-jump-backward", Safe: true,
			Doc: "a holder crashes, then redis-server's clock jumps 3 s back (healed by slewing at 1 s/s): the crashed holder's lock " +
				"outlives its lease by 3 s, a liveness matter only — no safety checker may fire",
			Plan: heldPlan(), Duration: 10 * time.Second, Topology: ShimmedServer(faults.PersistNone),
			Faults: jumpBackward,
			Expect: func(subject.Subject) (Expect, bool) {
				return Expect{Label: "safe (liveness only)", Checkers: map[string]model.Verdict{
					model.CheckLinearizable: model.Valid, model.CheckMutualExclusion: model.Valid,
				}}, true
			},
		},
		{
			Name: "clock-jump-forward", Safe: false,
			Doc: "redis-server's clock jumps 3 s ahead (past the 1.5 s lease) for 0.5–0.8 s at a time while locks are held: " +
				"every lock key expires at once and a waiter is granted while the holder is in its section",
			Plan: heldPlan(), Duration: 6 * time.Second, Topology: ShimmedServer(faults.PersistNone), LossyFaults: clockLossy,
			Faults: serverClockFault(func(c []faults.Offsetter, target string) faults.Fault {
				return faults.ClockJump(c, target, ClockJump)
			}, faults.Range{Min: ms(700), Max: ms(1200)}, faults.Range{Min: ms(500), Max: ms(800)}),
			Expect: clockForwardExpect,
		},
		{
			Name: "clock-drift", Safe: false,
			Doc: "redis-server's clock runs 10× fast (drift +9 s/s) for 1–1.5 s at a time while locks are held: a 1.5 s lease lasts 150 ms, " +
				"less than the 0.5 s between watchdog renewals, so holds in sections of 100–350 ms expire under their holders",
			Plan: heldPlan(), Duration: 6 * time.Second, Topology: ShimmedServer(faults.PersistNone), LossyFaults: clockLossy,
			Faults: serverClockFault(func(c []faults.Offsetter, target string) faults.Fault {
				return faults.ClockDrift(c, target, 9, 5*time.Millisecond)
			}, faults.Range{Min: ms(500), Max: ms(1000)}, faults.Range{Min: ms(1000), Max: ms(1500)}),
			Expect: clockForwardExpect,
		},
		{
			Name: "redlock-clock-jump", Safe: false,
			Doc: "RedLock on 3 independent nodes, Kleppmann's clock counterexample: node 2 unreachable (SIGSTOP) until a grant rests on {0,1} (at most 700 ms); " +
				"node 1's clock jumps 3 s ahead and its key expires; node 2 returns and {1,2} grant the lock again (3 times per run)",
			Plan: heldPlan(), Duration: 9 * time.Second, Topology: ShimmedRedlockTopology(3), Skip: skipOnNodes, LossyFaults: clockLossy,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				f, err := redlockClockJump(w, 700*time.Millisecond)
				sched := faults.Schedule{
					{At: time.Second, Duration: 1200 * time.Millisecond},
					{At: 3500 * time.Millisecond, Duration: 1200 * time.Millisecond},
					{At: 6 * time.Second, Duration: 1200 * time.Millisecond},
				}
				return []faults.Fault{f}, sched, err
			},
		},
		fairClockSkew(),
	}
}

// fairClockSkew skews every client's clock by its own fixed offset, all
// within ±45% of the fair lock's queue timeout.
func fairClockSkew() Scenario {
	return Scenario{
		Name: "fair-clock-skew", Safe: true,
		Doc: "each client's clock skewed by a fixed offset drawn from ±45% of the fair lock's queue timeout (5 min), so that any two differ by less than it, " +
			"for most of the run; blocking acquires only (a TryLock's queue timeout is its wait): FIFO must hold and no waiter be lost",
		Plan: blockingPlan(), Duration: 6 * time.Second, Topology: WithClientClocks(SingleServer(faults.PersistNone)), Skip: skipUnclocked,
		Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
			return []faults.Fault{clientSkew(w, 0.45*float64(impl.DefaultThreadWaitTime))},
				faults.Schedule{{At: 500 * time.Millisecond, Duration: w.Duration - 1500*time.Millisecond}}, nil
		},
	}
}

// blockingPlan is the contended plan with blocking acquires only.
func blockingPlan() workloads.Plan {
	p := contendedPlan()
	p.TryLockPercent = 0
	return p
}

// clockForwardExpect: the reference locks lose mutual exclusion; the fenced
// lock's register is measured (the stale holder's write may come before or
// after the new holder's).
func clockForwardExpect(s subject.Subject) (Expect, bool) {
	if isFenced(s) {
		return Expect{Label: "detected (fenced register measured)", Verdict: model.Invalid, Checkers: map[string]model.Verdict{
			model.CheckLinearizable: model.Invalid, model.CheckFencing: model.Valid,
		}}, true
	}
	return Expect{}, false
}

// serverClockFault is serverFault for clock faults on the run's shimmed
// redis-server.
func serverClockFault(fault func(clocks []faults.Offsetter, target string) faults.Fault, quiet, broken faults.Range) FaultsFunc {
	return serverFault(func(s *faults.Server) faults.Fault {
		return fault(serverClocks(s), s.Addr())
	}, quiet, broken)
}

// serverClocks is s's clock as a clock-fault target (none when s does not
// run through the shim: the fault then fails at Start, naming the cause).
func serverClocks(s ...*faults.Server) []faults.Offsetter {
	var out []faults.Offsetter
	for _, srv := range s {
		if c := srv.Clock(); c != nil {
			out = append(out, c)
		}
	}
	return out
}

// jumpBackward crashes the holder (a worker drawn from the seed when
// nobody holds) at 1 s, then moves the server's clock ClockJump back at
// 1.2 s for 4 s, healed by slewing at 1 s/s.
func jumpBackward(w World) ([]faults.Fault, faults.Schedule, error) {
	srv, err := needServer(w)
	if err != nil {
		return nil, nil, err
	}
	targets := w.Clients.Targets()
	fallback := targets[w.Rand.IntN(len(targets))]
	crash := faults.Func("client-crash", "the holder", func(ctx context.Context) error {
		t := fallback
		if h := w.Holders.Holding(); len(h) > 0 && h[0] < len(targets) {
			t = targets[h[0]]
		}
		return faults.Crash(w.Clients, t).Start(ctx)
	}, func(context.Context) error { return nil })
	jump := faults.ClockJumpSlewed(serverClocks(srv), srv.Addr(), -ClockJump, 1)
	return []faults.Fault{crash, jump}, faults.Schedule{
		{At: time.Second, Duration: 5 * time.Millisecond, Fault: 0},
		{At: 1200 * time.Millisecond, Duration: 4 * time.Second, Fault: 1},
	}, nil
}

// redlockClockJump is redlockAmnesia with a forward clock jump on node 1
// in place of its restart: node 2 is paused; once a grant is made while it
// is unreachable (after 100 ms, so that attempts it answered before the
// pause are settled; at most unreachable), node 1's clock jumps ClockJump
// ahead (its key expires) and node 2 resumes, while that holder is still
// in its section. Stop heals node 1's clock (a backward jump: keys outlive
// their TTL, never the reverse) and makes sure node 2 runs.
func redlockClockJump(w World, unreachable time.Duration) (faults.Fault, error) {
	if w.Env.Nodes == nil || len(w.Env.Nodes.Servers) < 3 {
		return nil, errors.New("scenario: this scenario needs the redlock topology with at least 3 nodes")
	}
	s := w.Env.Nodes.Servers
	jump := faults.ClockJump(serverClocks(s[1]), s[1].Addr(), ClockJump)
	return faults.Func("clock-jump", fmt.Sprintf("%s +%v (while %s is unreachable)", s[1].Addr(), ClockJump, s[2].Addr()),
		func(ctx context.Context) error {
			if err := s[2].Pause(); err != nil {
				return err
			}
			if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
				return errors.Join(err, s[2].Resume())
			}
			g0, deadline := w.Holders.Grants(), time.Now().Add(unreachable)
			for w.Holders.Grants() == g0 && time.Now().Before(deadline) {
				if err := sleepCtx(ctx, time.Millisecond); err != nil {
					return errors.Join(err, s[2].Resume())
				}
			}
			err := jump.Start(ctx)
			return errors.Join(err, s[2].Resume())
		},
		func(ctx context.Context) error {
			err := jump.Stop(ctx)
			if s[2].Paused() {
				err = errors.Join(err, s[2].Resume())
			}
			return err
		}), nil
}

// clientSkew sets each client clock to its own offset, drawn from the
// run's seed uniformly in ±bound.
func clientSkew(w World, bound float64) faults.Fault {
	offs := make([]time.Duration, len(w.Env.ClientClocks))
	for i := range offs {
		offs[i] = time.Duration((2*w.Rand.Float64() - 1) * bound).Round(time.Millisecond)
	}
	return faults.ClockSkew(w.Env.clientOffsetters(), "clients", offs)
}

// skipRemoteServerClock is why the server-clock scenarios cannot run
// against a deployment given by address.
const skipRemoteServerClock = "lockcheck cannot move a remote server's clock: the clock shim needs a redis-server that lockcheck starts"

// remoteClockScenarios are the clock scenarios against a deployment given by
// address: client skew applies; server clocks cannot move, so that scenario
// is listed with the reason it skips.
func remoteClockScenarios(top Topology) []Scenario {
	fair := fairClockSkew()
	return []Scenario{
		{
			Name: "remote-clock-jump", Safe: false,
			Doc:  "clock-jump-forward against the given deployment: skipped (" + skipRemoteServerClock + ")",
			Plan: heldPlan(), Duration: 6 * time.Second, Topology: top,
			Skip: func(subject.Subject) string { return skipRemoteServerClock },
		},
		{
			Name: "remote-fair-clock-skew", Safe: true, Doc: fair.Doc + "; against the given deployment",
			Plan: fair.Plan, Duration: fair.Duration, Topology: WithClientClocks(top), Skip: skipUnclocked, Faults: fair.Faults,
		},
	}
}
