package workloads

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lockcheck/lockcheck/faults"
)

// Range is a closed interval of durations, drawn uniformly (faults.Range,
// which a fault schedule draws from too).
type Range = faults.Range

// Plan is everything a run's processes do, apart from the interleaving the
// machine chooses: how many processes, which locks, the mix of blocking and
// try acquires, leases, waits, hold and think times, and reentrancy. A plan is
// a pure function of a workload and a seed (Workload.Generate) or drawn by
// rapid (Workload.Gen), so property suites can shrink it.
//
// Every process draws its own op choices from a random source seeded with
// (seed, process id), so the same plan and seed give the same op sequence
// per process.
type Plan struct {
	Workload string `json:"workload"`
	// Processes is the number of client processes, each with
	// ThreadsPerProcess owners: Owners() concurrent logical processes.
	Processes int `json:"processes"`
	// ThreadsPerProcess is how many owners each client process hosts
	// (threads of one JVM, tasks of one node or Python process, goroutines
	// sharing one go-redis client and Maker), all on one client instance
	// as applications run them; a fault on the process hits all of them.
	// 0 or 1: every owner is a client process of its own.
	ThreadsPerProcess int `json:"threads_per_process,omitempty"`
	// SharedObjects has each client process keep one lock object per lock
	// name, made at its first request and reused by every later request of
	// all its owners, as applications keep a lock in a field (a Redisson
	// RLock). false: a new object per request. Only subjects whose driver
	// can (subject.Subject.SharesObjects) run it.
	SharedObjects bool `json:"shared_objects,omitempty"`
	// CallForms has every acquire and release drawn to one of the call
	// forms the library offers for it (impl.CallForm: units, sentinel
	// waits, thread-bound or async calls), from the process's seeded
	// draws; each op records the form it made. false: the driver's default
	// form. Only subjects whose driver varies its forms
	// (subject.Subject.VariesForms) run it.
	CallForms bool `json:"call_forms,omitempty"`
	// Locks are the lock names processes pick from, uniformly.
	Locks []string `json:"locks"`
	// TryLockPercent is the share of acquires made with TryLock (the rest use Lock).
	TryLockPercent int `json:"try_lock_percent"`
	// Lease is the lease asked for; 0 asks for a watchdog-renewed lock.
	Lease time.Duration `json:"lease"`
	// Wait bounds each TryLock.
	Wait Range `json:"wait"`
	// NoWaitPercent is the share of TryLocks that make one attempt and
	// do not wait (a wait of 0: Redisson's tryLock(), redsync's single
	// try), the call applications make most; the others draw from Wait.
	NoWaitPercent int `json:"no_wait_percent,omitempty"`
	// Hold is the time spent inside the critical section.
	Hold Range `json:"hold"`
	// Think is the pause between one release and the next acquire.
	Think Range `json:"think"`
	// MaxReentry is the most extra holds a process takes while it holds a
	// lock (0: never reenters). Ignored for subjects that are not reentrant.
	MaxReentry int `json:"max_reentry"`
	// Counter makes each critical section read-modify-write the protected
	// register of its lock (outside the Redis under test).
	Counter bool `json:"counter"`
	// OpTimeout bounds every op; a Lock still waiting then ends as a fail
	// (never granted) and an op cut off mid-request ends as info.
	OpTimeout time.Duration `json:"op_timeout"`
	// LongHolds lets a watchdog plan (Lease 0) hold longer than a quarter of
	// the watchdog lease, even longer than the lease itself: only the
	// watchdog's renewals keep such holds safe, which is what scenarios that
	// cut renewal off (a partition longer than the lease) need. A lock
	// without a watchdog is unsafe under such a plan even without faults.
	LongHolds bool `json:"long_holds,omitempty"`
	// Interruptible makes every lock, tryLock and unlock interruptibly
	// (impl.MarkInterruptible), as an application that interrupts its
	// threads makes them: a client-interrupt fault may then cut any of
	// them off (Java: Redisson's thread-bound lockInterruptibly and
	// tryLock instead of their async forms).
	Interruptible bool `json:"interruptible,omitempty"`
	// CancelPercent is the share of cycles made on a lock's side lock
	// ("<lock>~cancel"), half of them a Lock whose context the process
	// cancels CancelAfter after the call (drawn skewed toward its Min) —
	// before the request is sent,
	// while it is in flight, while it waits — and half a TryLock that is
	// not cancelled and fails when a cancelled acquire left a hold that is
	// renewed. A cancelled acquire that did not return a grant must leave
	// nothing behind that is renewed; one whose outcome is unknown retires
	// its process, whose handle is dropped without Abandon (which would
	// stop the very renewal that must not run). The side lock keeps the
	// holds such acquires may leave (which run out with their lease) off
	// the plan's locks. An external driver is cancelled only when it
	// announces interrupts (impl.Interruptible): the cancellation is then
	// its interrupt (Thread.interrupt() in Java).
	CancelPercent int   `json:"cancel_percent,omitempty"`
	CancelAfter   Range `json:"cancel_after,omitempty"`
	// CancelAtReplyPercent is the share of those cancelled Locks cut off
	// at the reply to their first lock command instead, through the
	// client's RESP proxy, which holds the reply until the call learned of
	// the cancel (for a driver: until it confirmed the interrupt): the
	// command has run in Redis, and on a free side lock it granted the
	// lock to a call that ends cancelled. No draw is made when it is 0, so
	// older plans replay. Without a proxy the call is cancelled at once.
	CancelAtReplyPercent int `json:"cancel_at_reply_percent,omitempty"`
	// StrayUnlockPercent is the share of cycles that are an Unlock of a
	// lock the process does not hold, which must fail (not the owner): a
	// lock whose unlock checks no owner frees the holder's lock, a bug that
	// otherwise shows only when a late unlock meets the next holder.
	StrayUnlockPercent int `json:"stray_unlock_percent,omitempty"`
	// NestPercent is the share of cycles whose holder, once granted, takes
	// a second lock inside its hold (worker.nest): one of Locks after its
	// own in name order (none after the last, so that nesting owners never
	// wait on each other), as any acquire (a TryLock that makes one
	// attempt under an explicit Lease, which a wait could outlast), for one
	// section, released before the first lock's sections: applications
	// that hold two locks at once meet the bugs of state a client keeps
	// per thread or per stripe of names. No draw is made when it is 0, so
	// older plans replay.
	NestPercent int `json:"nest_percent,omitempty"`
	// ReadPercent is, for a read-write lock (subject.ReadWrite), the share
	// of cycles that take the read side (the rest take the write side);
	// DowngradePercent the share of write cycles that downgrade: take the
	// read side while writing, release the write side, read on. A plan that
	// sets neither gets 50 and 25 for a read-write lock; for other locks
	// both are 0 (worker_rw.go).
	ReadPercent      int `json:"read_percent,omitempty"`
	DowngradePercent int `json:"downgrade_percent,omitempty"`
	// LongReadPercent is the share of a read-write lock's read sections
	// (downgraded ones too) that last LongRead instead of Hold: reads that
	// outlive leases, kept only by the read side's renewal. It needs
	// LongHolds.
	LongReadPercent int   `json:"long_read_percent,omitempty"`
	LongRead        Range `json:"long_read,omitempty"`
	// LongDowngradePercent is LongReadPercent for the read sections of
	// downgrades (0: LongReadPercent).
	LongDowngradePercent int `json:"long_downgrade_percent,omitempty"`
	// Phases, if set, shape the run in time (see Phases): storms, quiet
	// phases, long holds with reconnects, overruns.
	Phases *Phases `json:"phases,omitempty"`
}

// Validate reports the first thing wrong with p.
func (p Plan) Validate() error {
	switch {
	case p.Processes < 1:
		return fmt.Errorf("plan: processes = %d, want >= 1", p.Processes)
	case p.ThreadsPerProcess < 0 || p.ThreadsPerProcess > MaxThreadsPerProcess:
		return fmt.Errorf("plan: threads_per_process = %d, want 0..%d", p.ThreadsPerProcess, MaxThreadsPerProcess)
	case len(p.Locks) == 0:
		return errors.New("plan: no lock names")
	case p.TryLockPercent < 0 || p.TryLockPercent > 100:
		return fmt.Errorf("plan: try_lock_percent = %d, want 0..100", p.TryLockPercent)
	case p.NoWaitPercent < 0 || p.NoWaitPercent > 100:
		return fmt.Errorf("plan: no_wait_percent = %d, want 0..100", p.NoWaitPercent)
	case p.Lease < 0:
		return fmt.Errorf("plan: lease = %v, want >= 0 (0: watchdog)", p.Lease)
	case p.MaxReentry < 0:
		return fmt.Errorf("plan: max_reentry = %d, want >= 0", p.MaxReentry)
	case p.OpTimeout <= 0:
		return fmt.Errorf("plan: op_timeout = %v, want > 0", p.OpTimeout)
	case p.CancelPercent < 0 || p.CancelPercent > 100:
		return fmt.Errorf("plan: cancel_percent = %d, want 0..100", p.CancelPercent)
	case p.CancelAtReplyPercent < 0 || p.CancelAtReplyPercent > 100:
		return fmt.Errorf("plan: cancel_at_reply_percent = %d, want 0..100", p.CancelAtReplyPercent)
	case p.StrayUnlockPercent < 0 || p.StrayUnlockPercent > 100:
		return fmt.Errorf("plan: stray_unlock_percent = %d, want 0..100", p.StrayUnlockPercent)
	case p.NestPercent < 0 || p.NestPercent > 100:
		return fmt.Errorf("plan: nest_percent = %d, want 0..100", p.NestPercent)
	case p.ReadPercent < 0 || p.ReadPercent > 100 || p.DowngradePercent < 0 || p.DowngradePercent > 100:
		return fmt.Errorf("plan: read_percent = %d, downgrade_percent = %d, want 0..100", p.ReadPercent, p.DowngradePercent)
	case p.LongReadPercent < 0 || p.LongReadPercent > 100 || p.LongDowngradePercent < 0 || p.LongDowngradePercent > 100 ||
		(p.LongReadPercent+p.LongDowngradePercent > 0 && !p.LongHolds):
		return fmt.Errorf("plan: long_read_percent = %d, long_downgrade_percent = %d, want 0..100 (and long_holds when > 0)", p.LongReadPercent, p.LongDowngradePercent)
	}
	if p.Phases != nil {
		if err := p.Phases.validate(); err != nil {
			return err
		}
	}
	for name, r := range map[string]Range{"wait": p.Wait, "hold": p.Hold, "think": p.Think, "cancel_after": p.CancelAfter, "long_read": p.LongRead} {
		if r.Min < 0 || r.Max < r.Min {
			return fmt.Errorf("plan: %s range [%v, %v] is not a valid interval", name, r.Min, r.Max)
		}
	}
	if p.Lease > 0 && p.Hold.Max*4 > p.Lease {
		return fmt.Errorf("plan: hold up to %v is not far shorter than the lease %v (keep it under a quarter)", p.Hold.Max, p.Lease)
	}
	return nil
}

// MaxThreadsPerProcess bounds Plan.ThreadsPerProcess.
const MaxThreadsPerProcess = 256

// Threads is the number of owners per client process (at least 1).
func (p Plan) Threads() int { return max(p.ThreadsPerProcess, 1) }

// Owners is the number of concurrent logical processes (owners) of the
// plan: Processes client processes of Threads owners each.
func (p Plan) Owners() int { return p.Processes * p.Threads() }

// ProcessRand returns the random source for process id's op choices under seed.
func ProcessRand(seed int64, process int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(process)*0x9E3779B97F4A7C15+1))
}
