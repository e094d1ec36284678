package catalog

import (
	"strconv"

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
	d.Capabilities = []string{driver.CapReentrant, driver.CapWatchdog}
	d.NotScored = ""
	if redlock {
		d.Quorum = true
	} else {
		d.Members = MultiLockMembers
	}
	return d
}
