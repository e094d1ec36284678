// Package mutants holds deliberately broken locks. Each is a Redisson-style
// reentrant lock (hash + Lua + pub/sub wake-ups bounded by the holder's TTL +
// watchdog, built here on its own small scripts) with exactly one realistic
// bug taken from lock libraries in the wild. They prove that the checkers
// catch what they claim to: a harness run against a mutant must report a
// violation, while the same run against the reference locks must pass.
//
// The mutants are for tests only; never use them to protect anything.
package mutants

import (
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// Mutant is a named broken lock.
type Mutant struct {
	// Name is the subject name, "mutant-<bug>".
	Name string
	// Doc says in one line what is broken.
	Doc string
	// Catches names the checker(s) that must report it, and how.
	Catches string
	// Scenario is the catalog scenario that exposes the flaw (`lockcheck
	// run --scenario S`), where the fault-allowance checker must find a
	// violation beyond what the fault allows a correct lock; "" for the hunt
	// workload (`lockcheck run --workload hunt`), which catches it without
	// a fault.
	Scenario string
	// Workload, if set, is the workload that exposes the flaw instead of
	// hunt (the read-write mutants: RWWorkload).
	Workload string
	// ReadWrite marks a read-write lock mutant (its handles are impl.Sided).
	ReadWrite bool
	// Open makes the mutant's Maker.
	Open impl.MakerFunc
	// Members, >= 2, says the mutant is a multilock over that many members
	// (impl.MemberNames) whose ops record the other members; Quorum, that
	// it is a RedLock (multilock.go).
	Members int
	Quorum  bool
}

// Plain reports whether m is a plain lock built on the base (not a
// read-write lock or a multilock): it has no fault hook (impl.Freezer,
// impl.Abandoner), so only a stopped or killed process stops its watchdog,
// and the driver protocol can serve it in a process of its own.
func (m Mutant) Plain() bool { return !m.ReadWrite && m.Members == 0 }

// All returns every mutant, with DefaultWatchdogLease for Lock(ctx, 0).
func All() []Mutant { return AllWithLease(DefaultWatchdogLease) }

// Base returns the base every mutant is built on, without a flaw: a
// correct reentrant lock with watchdogLease as the lease of watchdog-renewed
// holds. Runs that catch the mutants must pass it, or a catch could be the
// base's doing rather than the mutant's flaw.
func Base(watchdogLease time.Duration) impl.MakerFunc {
	return open(config{watchdogLease: watchdogLease})
}

// AllWithLease returns every mutant with watchdogLease as the lease of
// watchdog-renewed holds (Lock(ctx, 0)); a short one makes the renewal
// mutants bite sooner.
func AllWithLease(watchdogLease time.Duration) []Mutant {
	mk := func(f flaw) impl.MakerFunc { return open(config{flaws: f, watchdogLease: watchdogLease}) }
	return append([]Mutant{
		{
			Name:    "mutant-check-then-set",
			Doc:     "acquire checks EXISTS/HEXISTS, then HINCRBY+PEXPIRE in a second round trip: two clients can both see the lock free",
			Catches: "mutual exclusion (overlapping critical sections, lost updates) and linearizability (two concurrent grants)",
			Open:    mk(checkThenSet),
		},
		{
			Name:    "mutant-unlock-no-owner-check",
			Doc:     "unlock is a plain DEL + PUBLISH: a non-holder's or an expired holder's unlock frees the current holder's lock",
			Catches: "linearizability (a non-owner's unlock succeeds) and mutual exclusion (the next grant overlaps the holder)",
			Open:    mk(unlockNoOwner),
		},
		{
			Name:    "mutant-reentry-no-count",
			Doc:     "a reentrant acquire sets the hold count to 1 instead of incrementing it: the first unlock frees a lock still held once",
			Catches: "linearizability with reentrant workloads (another owner is granted while the holder has holds left); mutual exclusion when critical sections span the inner unlock",
			Open:    mk(reentryNoCount),
		},
		{
			Name:    "mutant-renew-any-owner",
			Doc:     "the keep-alive renews every hold, is not stopped by Unlock, and its script has no owner check: it re-creates its field and extends whatever is there",
			Catches: "linearizability (grants and failed tryLocks that no holder explains), mutual exclusion (re-created field lets the old holder re-enter), liveness (the lock never frees)",
			Open:    mk(renewAnyone),
		},
		{
			Name:    "mutant-pubsub-only-wait",
			Doc:     "a waiter subscribes after its failed attempt and then waits only for an unlock message: a release in between, or a holder whose lease ran out, leaves it stuck",
			Catches: "liveness (a waiter waits until its context ends while the lock is free)",
			Open:    mk(pubsubOnlyWait),
		},
		{
			Name:    "mutant-error-is-success",
			Doc:     "an acquire error (timeout, cancelled context, EOF) is returned as acquired; a tryLock whose wait ran out makes a last attempt that always errors",
			Catches: "mutual exclusion and linearizability (a timed-out tryLock/lock reports a grant while another owner holds the lock)",
			Open:    mk(errorIsSuccess),
		},
		{
			Name:    "mutant-wakeup-is-grant",
			Doc:     "a waiter takes the unlock message itself as the grant instead of acquiring again: every woken waiter believes it holds the lock",
			Catches: "mutual exclusion and linearizability (several waiters granted by one release)",
			Open:    mk(wakeupIsGrant),
		},
		{
			Name:    "mutant-watchdog-late",
			Doc:     "the keep-alive renews every lease + lease/10 instead of every lease/3: the lease runs out shortly before each renewal, which then finds no field and stops",
			Catches: "mutual exclusion and linearizability with holds that outlast the watchdog lease (a waiter is granted while the holder still works)",
			Open:    mk(watchdogLate),
		},
		{
			Name:    "mutant-unlock-frees-expired",
			Doc:     "an unlock whose lease ran out (its field is gone) deletes the key and publishes the wake-up anyway, then answers not-owner: a late unlock frees the next holder",
			Catches: "linearizability and mutual exclusion with explicit leases that run out before the unlock: the late unlock frees the next holder, and a third process is granted while it holds",
			Open:    mk(unlockFreesExpired),
		},
		{
			Name:    "mutant-cancel-keeps-renewal",
			Doc:     "an acquire that gives up (wait ran out, ctx ended, even mid-script) goes on in the background for up to 2 s; a grant there starts a watchdog renewal for a hold nobody owns, renewed until the Maker closes",
			Catches: "liveness and linearizability: an orphan hold nobody owns is renewed for ever; acquires of other processes fail on a lock every live holder released",
			Open:    mk(cancelOrphan),
		},
		{
			Name: "mutant-renew-gives-up",
			Doc: "the keep-alive stops for good after its first failed renewal (an error reply, a dropped connection, a refused dial, or no reply within the renewal period, lease/3): " +
				"the hold runs out while its holder works (Redisson before 3.44.0 removed the renewal on any failure)",
			Catches: "fault-allowance (beyond the fault) on renewal-refused: one renewal refused by Redis, which a correct watchdog retries a third of a lease later, " +
				"ends the keep-alive and another process is granted inside a live holder's section; also on redis-pause-long-hold, and mutual exclusion and linearizability on the hunt workload's reconnects",
			Scenario: "renewal-refused",
			Open:     mk(renewGivesUp),
		},
		{
			Name: "mutant-renew-retakes",
			Doc: "the keep-alive renews the way SET key token XX PX does, without an owner check: whenever the key exists it makes it its own and re-arms the lease, " +
				"so a holder whose lease ran out while it was paused takes the lock back from the owner granted meanwhile",
			Catches: "fault-allowance (beyond the fault) on pause-mix, named 'took the lock back': the resumed holder's renewal overwrites the new holder's hash with its own field, " +
				"so a holder no fault touched loses its hold (its unlock fails) while the resumed one unlocks with ok; pause-mix's long holds leave section time " +
				"after a pause for the resumed watchdog to renew before its holder's unlock (client-stall: 18 of 20 beyond)",
			Scenario: "pause-mix",
			Open:     mk(renewRetakes),
		},
		{
			Name: "mutant-unlock-fail-keeps-renewal",
			Doc: "an unlock that gets no answer (a dropped connection, a timeout) leaves the hold's keep-alive running, out of the handle's reach: " +
				"the lock stays renewed by a client that gave it up (Redisson 3.8.0 cancelled the renewal only on success)",
			Catches: "fault-allowance (beyond the fault: the lease bound) and liveness on reset-holder-short: the hold of a process retired by its failed unlock " +
				"outlives it by more than a lease, and the other processes' acquires fail on a lock no live process holds",
			Scenario: "reset-holder-short",
			Open:     mk(unlockFailKeepsRenewal),
		},
		{
			Name: "mutant-late-unlock-leaves-renewal",
			Doc: "the renewal entry is removed only by a successful unlock and a present entry is taken for a running renewal: after a late unlock (the lease ran out first), " +
				"the handle's next watchdog hold is never renewed and runs out while its holder works",
			Catches: "fault-allowance (beyond the fault) on client-stall-long-hold: after the stall, the stalled process's next hold, longer than the lease, " +
				"runs out with no fault and another process is granted inside its section",
			Scenario: "client-stall-long-hold",
			Open:     mk(lateUnlockLeavesRenewal),
		},
		{
			Name: "mutant-timeout-is-grant",
			Doc: "an acquire whose reply timed out (the request sent, no reply before the read deadline) is taken as granted; " +
				"other errors are not (narrower than mutant-error-is-success)",
			Catches: "fault-allowance (beyond the fault) and linearizability on slow-reply: an attempt that found the lock taken is answered after the client's timeout, " +
				"and the caller is told it holds the lock while another process holds it (also on partition-timeout, where the attempt never reached Redis)",
			Scenario: "slow-reply",
			Open:     mk(timeoutIsGrant),
		},
		{
			Name: "mutant-renew-outlives-unlock",
			Doc: "the keep-alive reschedules itself whatever its owner-checked renewal answers, and Unlock does not stop it: " +
				"after each release it goes on renewing a hold that is gone, every third of a lease (Redisson 3.10.5 and 3.10.6)",
			Catches: "fault-allowance (contract/renewed-missing) from the wire trace: renewals of a released hold answered 0 one after another; " +
				"no other checker sees it, since the owner check keeps the renewals from touching anyone's hold",
			Scenario: "no-faults",
			Open:     mk(renewOutlivesUnlock),
		},
	}, append(rwMutants(watchdogLease), multiLockMutants(watchdogLease)...)...)
}
