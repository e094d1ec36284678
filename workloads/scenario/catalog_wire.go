package scenario

import (
	"context"
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// slowReplyDelay holds a reply past every client's timeout in the catalog:
// go-redis's 1 s ReadTimeout (faults.Server.Options), the Java drivers' 1 s
// command timeout (java-common Flags).
const slowReplyDelay = 2 * time.Second

// wireScenarios are the scenarios whose faults act on one command, or the
// connections, of one client (a faults.Wire behind each client's proxy):
// the triggers of bugs that need no long outage. Each is safe for a correct
// lease lock whose client times out; slow-reply breaks, within its
// allowance, the locks whose clients wait for a late reply.
func wireScenarios() []Scenario {
	return []Scenario{
		{
			Name: "renewal-refused", Safe: true,
			Permits: true,
			Doc: "Redis refuses one lock command of the holder once a window (an error reply; in 2–2.5 s sections kept safe by the watchdog alone, " +
				"that is its next renewal): a watchdog must retry at its next tick, a third of the 1.5 s lease later, and the hold must survive",
			Plan: stallLongHoldPlan(), Duration: 10 * time.Second, Topology: SingleServer(faults.PersistNone), Skip: skipNoWatchdog, Expect: withinTheFault,
			Faults: wireSchedule(faults.Range{Min: ms(800), Max: ms(1000)}, func(w World) faults.Fault {
				return holderWireFault(w, "refuse-once", refuseOnce)
			}),
		},
		{
			Name: "slow-reply", Safe: true,
			Permits: true,
			Doc: "a waiting client's next lock command runs, but its reply comes 2 s late, past the 1 s timeout of lockcheck's clients, once a window " +
				"(contended sections of 150–350 ms, so the attempt usually found the lock taken): a caller must not take its timeout for a grant; " +
				"one that waits for the reply learns of a grant whose 1.5 s lease may be gone (allowed): lockcheck's own locks and the Go peers, whose clients time out, must stay valid; " +
				"other clients may break, within the fault",
			Plan: slowReplyPlan(), Duration: 14 * time.Second, Topology: SingleServer(faults.PersistNone), Expect: withinTheFault,
			Faults: wireSchedule(faults.Range{Min: ms(300), Max: ms(600)}, waiterSlowReply),
		},
		{
			Name: "client-conn-kill", Safe: true,
			Permits: true,
			Doc: "Redis kills every connection of the holder's client (CLIENT KILL ADDR), its process left running, once a window, while 4–5 s sections " +
				"go on, kept safe by the watchdog alone; the kill lands where the seed says: at once, or (two windows in three) in place of the reply " +
				"to the holder's next lock command, a renewal that ran but whose caller learns only that its connection died. The client reconnects " +
				"and must renew again; a hold may run out only while the client was still reconnecting or waiting out its reply timeout, as its wire " +
				"trace records, and a watchdog that falls silent after the failure while its holder works on gave up",
			Plan: pauseLongHoldPlan(), Duration: 14 * time.Second, Topology: SingleServer(faults.PersistNone), Skip: skipNoWatchdog, Expect: withinTheFault,
			Faults: wireSchedule(faults.Range{Min: ms(100), Max: ms(200)}, holderKill),
		},
		{
			Name: "subscribe-refused", Safe: true,
			Doc: "Redis refuses one subscription of a waiting client once a window (its next SUBSCRIBE answered with an error, subscribing nothing), " +
				"while two owners of each client wait on one lock: the waiter must still be answered within its wait, and the client's later waits " +
				"must hear of releases again",
			Plan: subscribePlan(), Duration: 10 * time.Second, Topology: SingleServer(faults.PersistNone), Skip: skipOneOwner,
			Faults: wireSchedule(faults.Range{Min: ms(300), Max: ms(600)}, func(w World) faults.Fault {
				return waiterWireFault(w, "refuse-subscribe", faults.RefuseSubscribe)
			}),
		},
		{
			Name: "subscribe-slow", Safe: true,
			Doc: "one subscription of a waiting client is held back 2 s once a window (Redis subscribes it, but the confirmation and every message " +
				"after it on that connection come 2 s late, past the 1 s subscription timeout of lockcheck's clients), while two owners of each " +
				"client wait on one lock: a client that gave the subscription up must not lose the wake-ups of its later waits " +
				"(2.5–3.5 s of quiet between windows, which last until the held frames pass, to see them)",
			Plan: subscribePlan(), Duration: 12 * time.Second, Topology: SingleServer(faults.PersistNone), Skip: skipOneOwner,
			Faults: spacedSchedule(faults.Range{Min: ms(300), Max: ms(600)}, faults.Range{Min: ms(2500), Max: ms(3500)}, func(w World) faults.Fault {
				return waiterWireFault(w, "slow-subscribe", func(x *faults.Wire) faults.Fault { return faults.SlowSubscribe(x, slowReplyDelay) })
			}),
		},
	}
}

// skipOneOwner skips a lock whose client process hosts one owner: the
// subscription scenarios need two waiters of one client.
func skipOneOwner(s subject.Subject) string {
	if !s.HostsOwners() {
		return "one owner per client process: the trigger needs two waiters of one client"
	}
	return DefaultSkip(s)
}

// subscribePlan keeps waiters waiting on one lock, two owners in each
// client, with waits that outlast several sections, so that clients
// subscribe to the lock's channel again and again.
func subscribePlan() workloads.Plan {
	return workloads.Plan{
		Processes: 3, ThreadsPerProcess: 2, Locks: []string{"sub"}, TryLockPercent: 50,
		Wait: workloads.Range{Min: ms(300), Max: ms(1500)}, Hold: workloads.Range{Min: ms(30), Max: ms(150)},
		Think: workloads.Range{Max: ms(50)}, Counter: true, OpTimeout: 5 * time.Second,
	}
}

// withinTheFault is slow-reply's and client-conn-kill's expectation of the
// locks whose clients lockcheck does not configure (drivers, user locks): a
// client that waits for a reply past the lease may learn of a grant whose
// lease is gone, and one still reconnecting after a kill may miss the
// renewal after it, as the faults allow, so anything may fire but nothing
// beyond the fault. The reference locks and the Go peers (go-redis with a
// 1 s read timeout, retrying on a fresh connection) keep the default,
// valid; mutants keep theirs.
func withinTheFault(s subject.Subject) (Expect, bool) {
	if s.ConfiguredClient() {
		return Expect{}, false
	}
	return Expect{Label: "within the fault", Quiet: []string{model.CheckAllowance}, MayBreak: []string{
		model.CheckLinearizable, model.CheckMutualExclusion, model.CheckFairness, model.CheckLiveness, model.CheckContract,
	}}, true
}

// slowReplyPlan is four processes contending for one lock with sections
// of 150–350 ms, so that a waiter's attempt usually finds it taken.
func slowReplyPlan() workloads.Plan {
	return workloads.Plan{
		Processes: 4, Locks: []string{"sr"}, TryLockPercent: 30,
		Wait: workloads.Range{Min: ms(200), Max: ms(1500)}, Hold: workloads.Range{Min: ms(150), Max: ms(350)},
		Think: workloads.Range{Max: ms(10)}, Counter: true, OpTimeout: 6 * time.Second,
	}
}

// wireSchedule is one fault, made by fault, in windows of length d with
// 0.5–1 s of quiet before each.
func wireSchedule(d faults.Range, fault func(World) faults.Fault) func(World) ([]faults.Fault, faults.Schedule, error) {
	return spacedSchedule(d, faults.Range{Min: ms(500), Max: ms(1000)}, fault)
}

// spacedSchedule is one fault, made by fault, in windows of length d with
// quiet before each.
func spacedSchedule(d, quiet faults.Range, fault func(World) faults.Fault) func(World) ([]faults.Fault, faults.Schedule, error) {
	return func(w World) ([]faults.Fault, faults.Schedule, error) {
		s, err := faults.RandomSchedule(w.Rand, faults.RandomConfig{
			Faults: 1, Total: w.Duration - time.Second, Quiet: quiet, Duration: d,
		})
		return []faults.Fault{fault(w)}, s, err
	}
}

// refuseOnce refuses the next lock command on x once (renewal-refused's
// fault).
func refuseOnce(x *faults.Wire) faults.Fault { return faults.RefuseOnce(x, faults.LockCommands) }

// waiterSlowReply holds the reply to a waiting client's next lock command
// past its timeout (slow-reply's fault).
func waiterSlowReply(w World) faults.Fault {
	return waiterWireFault(w, "slow-reply", func(x *faults.Wire) faults.Fault {
		return faults.SlowReply(x, faults.LockCommands, slowReplyDelay)
	})
}

// holderWireFault is fault (called name) on the Wire of the client that
// holds the lock when each window opens (one drawn from the seed when
// nobody holds).
func holderWireFault(w World, name string, fault func(*faults.Wire) faults.Fault) faults.Fault {
	fallback := w.Rand.IntN(len(w.Env.Wires))
	return faults.Chosen(name, func(context.Context) faults.Fault {
		if x, ok := holdingWire(w); ok {
			return fault(x)
		}
		return fault(w.Env.Wires[fallback])
	})
}

// holdingWire is the Wire of the client that holds the lock now (false:
// nobody holds it).
func holdingWire(w World) (*faults.Wire, bool) {
	if h := w.Holders.Holding(); len(h) > 0 && h[0] < len(w.Env.Wires) {
		return w.Env.Wires[h[0]], true
	}
	return nil, false
}

// killWithin bounds how long a kill aimed at a request waits for one: two
// renewal periods of the scenarios' 1.5 s watchdog lease.
const killWithin = time.Second

// holderKill kills the connections of the client that holds the lock when
// each window opens (holderWireFault), at an aim drawn from the seed each
// window: at once, wherever the client is, or, two windows in three, in
// place of the reply to its next lock command within killWithin (a renewal
// inside a section, or its release: faults.KillClientAtReply).
func holderKill(w World) faults.Fault {
	inFlight := make([]bool, 64)
	for i := range inFlight {
		inFlight[i] = w.Rand.IntN(3) > 0
	}
	next := 0
	return holderWireFault(w, "client-conn-kill", func(x *faults.Wire) faults.Fault {
		aimed := inFlight[next%len(inFlight)]
		next++
		if !aimed {
			return faults.KillClient(x, w.Env.Admin)
		}
		return faults.KillClientAtReply(x, w.Env.Admin, faults.LockCommands, killWithin)
	})
}

// waiterWireFault is fault on the Wire of a client that does not hold the
// lock when each window opens (one drawn from the seed, each window).
func waiterWireFault(w World, name string, fault func(*faults.Wire) faults.Fault) faults.Fault {
	waiter := nonHolder(w, len(w.Env.Wires))
	return faults.Chosen(name, func(context.Context) faults.Fault { return fault(w.Env.Wires[waiter()]) })
}

// nonHolder returns, each time it is called (once a window), a worker
// index below n that does not hold the lock, drawn from the seed (the
// drawn one when every worker holds). The draws are made up front, so a
// window's choice depends on the seed and the holders, not on timing.
func nonHolder(w World, n int) func() int {
	draws := make([]int, 64)
	for i := range draws {
		draws[i] = w.Rand.IntN(n)
	}
	next := 0
	return func() int {
		holding := w.Holders.Holding()
		start := draws[next%len(draws)]
		next++
		for k := range n {
			if i := (start + k) % n; !slices.Contains(holding, i) {
				return i
			}
		}
		return start
	}
}
