// Package userlock is a user's own Redis lock, in a module of its own that
// uses lockcheck only through its public packages: SET NX PX with a token
// per handle to acquire, a compare-and-delete script to release, and (in
// NewRenewed) a watchdog that renews a hold while it still holds the
// handle's token. Its tests show what `go test` with locktest gives: both
// locks pass, even where a fault breaks any lease lock; the same lock with
// a planted bug (an unlock that checks no owner) fails with an
// explanation, a shrunk plan and a rerun line; and the renewed lock with a
// renewal that takes the lock back after its hold ran out (NewRetaking)
// fails where a fault goes no further than losing that hold.
package userlock
