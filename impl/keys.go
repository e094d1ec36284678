package impl

import "strings"

// Key and channel names, exactly as Redisson builds them
// (RedissonObject.prefixName/suffixName), so that a Go client and a Java
// Redisson client can share a lock. Every derived key carries the lock name as
// a hash tag, so it lands in the lock's Redis Cluster slot.

// prefixName is Redisson's prefixName: prefix + ":{" + name + "}", or
// prefix + ":" + name when name already holds a hash tag.
func prefixName(prefix, name string) string {
	if strings.Contains(name, "{") {
		return prefix + ":" + name
	}
	return prefix + ":{" + name + "}"
}

// ChannelName is the unlock channel of lock name:
// redisson_lock__channel:{name} (double underscore). The fair lock's
// per-waiter channel is ChannelName(name) + ":" + OwnerField(...).
func ChannelName(name string) string { return prefixName("redisson_lock__channel", name) }

// FairChannelName is the fair lock's wake-up channel of one waiter, owner
// field <clientId>:<owner>: redisson_lock__channel:{name}:<clientId>:<owner>.
func FairChannelName(name, field string) string { return ChannelName(name) + ":" + field }

// UnlockLatchName is the key of one unlock call's latch:
// redisson_unlock_latch:{name}:<requestId>.
func UnlockLatchName(name, requestID string) string {
	return prefixName("redisson_unlock_latch", name) + ":" + requestID
}

// TokenName is the fenced lock's token counter: redisson_lock_token:{name}.
func TokenName(name string) string { return prefixName("redisson_lock_token", name) }

// QueueName is the fair lock's FIFO wait queue (a LIST of owner fields):
// redisson_lock_queue:{name}.
func QueueName(name string) string { return prefixName("redisson_lock_queue", name) }

// TimeoutName is the fair lock's waiter deadlines (a ZSET of owner fields
// scored in epoch ms of the waiters' clocks): redisson_lock_timeout:{name}.
func TimeoutName(name string) string { return prefixName("redisson_lock_timeout", name) }

// OwnerField is the hash field of an owner: <clientId>:<owner> (Redisson's
// getLockName, with the owner token in place of the thread id).
func OwnerField(clientID, owner string) string { return clientID + ":" + owner }

// unlockMessage is LockPubSub.UNLOCK_MESSAGE, published on final unlock.
const unlockMessage = "0"

// SemaphoreChannelName is the wake-up channel of RSemaphore and
// RPermitExpirableSemaphore name: redisson_sc:{name}.
func SemaphoreChannelName(name string) string { return prefixName("redisson_sc", name) }

// PermitTimeoutName is RPermitExpirableSemaphore's lease ZSET:
// {name}:timeout.
func PermitTimeoutName(name string) string { return suffixName(name, "timeout") }

// LatchChannelName is RCountDownLatch's channel:
// redisson_countdownlatch__channel__{name} (no colon, always braced).
func LatchChannelName(name string) string {
	return "redisson_countdownlatch__channel__{" + name + "}"
}
