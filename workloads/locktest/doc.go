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
// named by $LOCKCHECK_REDIS), runs the lock through lockcheck's must-pass
// fault scenarios that fit what the lock claims, draws each run's plan with
// rapid (so that a failure shrinks to a small plan and replays with
// -rapid.seed) and checks every history with lockcheck's checkers. A run
// whose verdict is not the one the scenario requires fails the test with the
// checkers' explanation (which operations conflict, which fault windows
// overlap them), the run directory it kept (history.html) and the
// `lockcheck run` command line that reruns that very run.
//
// Budgets: about 10 s under -short, about 60 s otherwise; $LOCKCHECK_BUDGET
// (a Go duration) overrides both, for nightly runs. Hunt spends a budget
// looking for a failure instead of covering each scenario once.
//
// Files: a failure's run directory and a copy of the test binary (which
// serves the lock to the rerun line) are kept under $TMPDIR/locktest/<Name>
// for the user to open, and are never removed by locktest; a passing Run
// writes nothing there, and a Hunt that finds nothing removes its runs.
//
// Run sets rapid's flags for the duration of the test: do not call it from
// parallel tests.
package locktest
