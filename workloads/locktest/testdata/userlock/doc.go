// Package userlock is a user's own Redis lock, in a module of its own that
// uses lockcheck only through its public packages: SET NX PX with a token
// per handle to acquire, a compare-and-delete script to release. Its tests
// show what `go test` with locktest gives: the lock passes, and the same
// lock with a planted bug (an unlock that checks no owner) fails with an
// explanation, a shrunk plan and a rerun line.
package userlock
