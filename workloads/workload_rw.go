package workloads

import (
	"time"

	"pgregory.net/rapid"
)

// rwlockGen is the read-write workload: readers and writers on two locks,
// most cycles reading, many writes downgrading, short holds but for some
// reads that last more than the default watchdog lease (so reads and
// downgraded reads outlive leases and only renewal keeps them), and stray
// unlocks of either side (half of them on a lock no one takes).
// Run on a lock that is not a read-write lock, every cycle writes.
var rwlockGen = rapid.Custom(func(t *rapid.T) Plan {
	return Plan{
		Workload:             "rwlock",
		Processes:            rapid.IntRange(4, 6).Draw(t, "processes"),
		Locks:                lockNames("rw", 2),
		TryLockPercent:       rapid.IntRange(20, 40).Draw(t, "try_lock_percent"),
		Wait:                 Range{Min: 0, Max: ms(rapid.IntRange(20, 60).Draw(t, "wait_max_ms"))},
		Hold:                 Range{Min: 0, Max: ms(rapid.IntRange(1, 3).Draw(t, "hold_max_ms"))},
		LongReadPercent:      rapid.IntRange(5, 15).Draw(t, "long_read_percent"),
		LongDowngradePercent: rapid.IntRange(40, 60).Draw(t, "long_downgrade_percent"),
		LongRead:             Range{Min: ms(2000), Max: ms(rapid.IntRange(2500, 3500).Draw(t, "long_read_max_ms"))},
		Think:                Range{Min: 0, Max: ms(rapid.IntRange(1, 5).Draw(t, "think_max_ms"))},
		MaxReentry:           1,
		Counter:              true,
		LongHolds:            true,
		OpTimeout:            10 * time.Second,
		ReadPercent:          rapid.IntRange(45, 60).Draw(t, "read_percent"),
		DowngradePercent:     rapid.IntRange(40, 60).Draw(t, "downgrade_percent"),
		StrayUnlockPercent:   rapid.IntRange(8, 15).Draw(t, "stray_unlock_percent"),
	}
})
