// Package locktest checks a Redis lock from `go test` in one call:
//
//	func TestMyLock(t *testing.T) {
//		locktest.Run(t, locktest.Lock{
//			Name: "my-lock",
//			New: func(_ context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
//				return mylock.NewMaker(rdb, lease), nil
//			},
//		})
//	}
//
// Run starts its own redis-server processes on loopback (or uses the Redis
// named by $LOCKCHECK_REDIS), runs the lock through lockcheck's fault
// scenarios that fit what the lock claims, draws each run's plan with
// rapid's generators from a seed (a failure is shrunk to a small plan, as
// hunt shrinks its finds, and replays with -locktest.seed) and checks every
// history with lockcheck's checkers. The
// must-pass scenarios require a valid verdict. The unsafe ones break any
// lease lock (a holder stalled or cut off from Redis past its lease, a
// restart without persistence, a server clock jumping ahead): there the
// lock may lose a hold, as every lease lock must, but nothing beyond what
// the fault allows a correct lease lock (the fault-allowance checker must
// stay valid, and so must the properties the fault leaves alone). A run
// that does not show what its scenario requires fails the test with the
// checkers' explanation (which operations conflict, which fault windows
// overlap them; on an unsafe scenario the fault-allowance checker's
// examples first), the run directory it kept (history.html) and the
// `lockcheck run` command line that reruns that very run.
//
// Every run serves the lock in processes of its own, one per client: this
// test binary, started with -locktest.serve, speaking lockcheck's driver
// protocol. A client stall or a process pause is then a SIGSTOP of that
// process wherever its threads are (in a critical section, between a
// renewal's send and its reply, between an unlock's two commands), and a
// crash a SIGKILL: the lock needs no hook (no Freeze, no Abandon) for the
// faults to reach it.
//
// Budgets: about 10 s under -short (no-faults, partition-short,
// client-stall and process-pause), about 60 s otherwise (every scenario that fits, each run
// at least once), shared among the scenarios in proportion to their runs'
// lengths; $LOCKCHECK_BUDGET (a Go duration) overrides both, for nightly
// runs. Hunt spends a budget looking for a failure instead of covering
// each scenario once.
//
// Files: a failure's run directory and a copy of the test binary (which
// serves the lock to the rerun line) are kept under $TMPDIR/locktest/<Name>
// for the user to open, and are never removed by locktest; a passing Run
// writes nothing there, and a Hunt that finds nothing removes its runs.
//
// Run and Hunt change no process-wide state (rapid's flags included): they
// may be called from parallel tests. The package builds no peer library,
// plotting, table library or toxiproxy server: a module that imports it
// requires 11 modules in all (lockcheck and go-redis included; a test
// holds it to 12 at most). None of them registers anything on import.
package locktest
