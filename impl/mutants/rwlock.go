package mutants

import (
	_ "embed"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// The read-write mutants: lockcheck's port of Redisson's RReadWriteLock
// (impl.RWLock) with one of Redisson's own read-write lock bugs put back
// (impl.RWVariant). They run the read-write workload, RWWorkload.

var (
	//go:embed rw_read_renew_hash_only.lua
	rwReadRenewHashOnlySrc string
	//go:embed rw_read_unlock_missing_ok.lua
	rwReadUnlockMissingOKSrc string
	//go:embed rw_read_lease_sets_expiry.lua
	rwReadLeaseSetsExpirySrc string

	rwReadRenewHashOnly   = redis.NewScript(rwReadRenewHashOnlySrc)
	rwReadUnlockMissingOK = redis.NewScript(rwReadUnlockMissingOKSrc)
	rwReadLeaseSetsExpiry = redis.NewScript(rwReadLeaseSetsExpirySrc)
)

// RWWorkload is the workload the read-write mutants are caught with.
const RWWorkload = "rwlock"

func rwMutants(watchdogLease time.Duration) []Mutant {
	mk := func(v impl.RWVariant) impl.MakerFunc {
		return impl.RWLockVariantMaker(v, impl.WithWatchdogTimeout(watchdogLease))
	}
	return []Mutant{
		{
			Name: "mutant-rw-read-timeouts-not-renewed",
			Doc: "the watchdog renews a read hold's hash but not its per-hold timeout keys (Redisson before 2.13.1/3.8.1, #1604: " +
				"\"Lock watchdog does not monitor read locks\"): a read unlock re-arms the hash from expired keys and deletes it while another reader holds",
			Catches:  "mutual exclusion and linearizability on the rwlock workload: a writer is granted inside a long read hold that another reader's unlock freed",
			Workload: RWWorkload, ReadWrite: true,
			Open: mk(impl.RWVariant{ReadRenew: rwReadRenewHashOnly}),
		},
		{
			Name: "mutant-rw-downgrade-renewal",
			Doc: "a read hold taken while writing is renewed with the write hold and not on its own (Redisson before 3.17.1, #4217: " +
				"\"renewal doesn't work if writeLock released before readLock\"): after the write unlock the read hold runs out while its holder reads",
			Catches:  "mutual exclusion and linearizability on the rwlock workload: a writer is granted inside a downgraded read hold that outlived its lease",
			Workload: RWWorkload, ReadWrite: true,
			Open: mk(impl.RWVariant{DowngradeRenewsWithWrite: true}),
		},
		{
			Name: "mutant-rw-late-read-unlock-ok",
			Doc: "a read unlock of a lock that is not there (expired, or never taken) answers released (Redisson before 3.44.0, " +
				"\"RReadWriteLock.unlock() method doesn't respect the lock owner\")",
			Catches:  "linearizability (contract: a release answered ok by a process that held nothing) on the rwlock workload's stray unlocks",
			Workload: RWWorkload, ReadWrite: true,
			Open: mk(impl.RWVariant{ReadUnlock: rwReadUnlockMissingOK}),
		},
		{
			Name: "mutant-rw-read-lease-sets-expiry",
			Doc: "a read acquire sets the lock's expiry to its own lease even while another reader holds it longer (Redisson 3.11.0, #2144: " +
				"\"readLock doesn't take in account expiration date of the last acquired read lock\"): a short-leased reader cuts a longer read hold short",
			Catches: "mutual exclusion and linearizability on the hunt workload's shared overrun phases: a writer is granted inside the anchor's read hold, " +
				"cut short by a dying reader's lease (safety/double-grant.cut-short)",
			Workload: "hunt", ReadWrite: true,
			Open: mk(impl.RWVariant{ReadAcquire: rwReadLeaseSetsExpiry}),
		},
	}
}
