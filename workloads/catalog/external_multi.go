package catalog

import (
	"strconv"
	"time"

	"github.com/lockcheck/lockcheck/impl/driver"
)

// redissonMulti makes d, a Redisson driver of lock kind multilock or
// redlock, take MultiLockMembers members (--members; names as
// impl.MemberNames): no hold count and no cycle (RedissonMultiLock
// supports neither). The multilock records its members (Members); the
// RedLock, whose grant does not say which members it holds, is checked as
// one lock (Quorum).
func redissonMulti(d Driver, redlock bool) Driver {
	d.Command = append(d.Command, "--members", strconv.Itoa(MultiLockMembers))
	d.Capabilities = []string{driver.CapReentrant, driver.CapWatchdog, driver.CapForms}
	d.NotScored = ""
	if redlock {
		d.Quorum = true
	} else {
		d.Members = MultiLockMembers
	}
	return d
}

// splitWait is subject.Subject.SplitWait of d: RedLockSplitWait for a
// RedLock of members (Quorum), else none.
func (d Driver) splitWait() time.Duration { return quorumSplitWait(d.Quorum) }

// quorumSplitWait is RedLockSplitWait for a RedLock of members, else 0.
func quorumSplitWait(quorum bool) time.Duration {
	if quorum {
		return RedLockSplitWait
	}
	return 0
}
