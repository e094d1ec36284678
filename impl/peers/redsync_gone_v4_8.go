//go:build redsync_v4_8 || redsync_v4_11

package peers

// redsyncGone: redsync v4.8.x to v4.11.x (the tags redsync_v4_8 and
// redsync_v4_11) have no ErrLockAlreadyExpired; an unlock whose delete
// found the hold gone answers ErrNodeTaken from each node, which
// redsyncTaken reads.
func redsyncGone(error) bool { return false }
