package userlock_test

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/userlock"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/locktest"
)

// renewedLock is the lock with a watchdog: locktest also runs it where
// only renewal keeps a hold (critical sections longer than the lease).
var renewedLock = locktest.Lock{
	Name: "renewed", Watchdog: true,
	New: func(_ context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
		return userlock.NewRenewed(rdb, lease), nil
	},
}

// TestRenewedLockIsAMutex: the renewed lock passes, the unsafe scenarios
// included (a stall, a partition or a restart may cost it a hold, nothing
// more).
func TestRenewedLockIsAMutex(t *testing.T) {
	locktest.Run(t, renewedLock)
}

// retakingLock is renewedLock with the planted renewal bug.
var retakingLock = locktest.Lock{
	Name: "retaking", Watchdog: true,
	New: func(_ context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
		return userlock.NewRetaking(rdb, lease), nil
	},
}

// TestRetakingRenewal is the same suite on the lock whose renewal takes
// the lock back after its hold ran out. It fails, so it runs only when
// TestRetakingRenewalIsCaught asks for it.
func TestRetakingRenewal(t *testing.T) {
	if !*planted {
		t.Skip("fails on purpose: TestRetakingRenewalIsCaught runs it (-userlock.planted)")
	}
	locktest.Run(t, retakingLock)
}

// TestRetakingRenewalHunt hunts the renewal bug for 8 s, from a seed whose
// first draw is a client-stall run. It fails, so it runs only when
// TestRetakingRenewalIsCaught asks for it.
func TestRetakingRenewalHunt(t *testing.T) {
	if !*planted {
		t.Skip("fails on purpose: TestRetakingRenewalIsCaught runs it (-userlock.planted)")
	}
	locktest.Hunt(t, retakingLock, 8*time.Second, locktest.Seed(5), locktest.Scenarios("client-stall"))
}

// TestRetakingRenewalIsCaught runs TestRetakingRenewal in a test binary of
// its own: it must fail (exit 1) on a scenario whose fault breaks any lease
// lock (the stalled holder's renewal takes the lock back from the owner
// granted meanwhile, who was never stalled), naming the fault-allowance
// checker, with its examples first, and keep the run directory, whose
// result.json says the same; then the same of a Hunt.
func TestRetakingRenewalIsCaught(t *testing.T) {
	if *planted {
		t.Skip("this is the test binary TestRetakingRenewalIsCaught runs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	text := failsWithin(t, ctx, "^TestRetakingRenewal$", 3)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`retaking FAILED scenario [a-z-]+ \(seed \d+, a \S+ run\): fault-allowance invalid, want valid`),
		regexp.MustCompile(`required: within the fault`), // "within the fault" (process-pause) or "… fault's allowance" (an unsafe scenario)
		regexp.MustCompile(`beyond the fault's allowance \(what no fault allows a correct lease lock\):\s+fault-allowance +invalid`),
		regexp.MustCompile(`(?s)fault-allowance +invalid.*op +p\d+ (acquire|release) .*the other checkers:`), // its examples, first
		regexp.MustCompile(`-locktest\.seed=\d+`),
	} {
		if !want.MatchString(text) {
			t.Errorf("the failure does not say %s:\n%s", want, text)
		}
	}
	checkKept(t, text)
	t.Run("hunt", func(t *testing.T) {
		text := failsWithin(t, ctx, "^TestRetakingRenewalHunt$", 3)
		for _, want := range []string{"hunt retaking FOUND in run", "not as required: fault-allowance invalid, want valid", "run directory: ", "lockcheck run "} {
			if !strings.Contains(text, want) {
				t.Errorf("the hunt's failure does not say %q:\n%s", want, text)
			}
		}
	})
}

// failsWithin runs the tests run matches in a test binary of its own until
// they fail (exit 1), at most tries times, and returns that output. A
// renewal that happens to find the lock free takes it back unseen, so a run
// of the buggy lock may pass.
func failsWithin(t *testing.T, ctx context.Context, run string, tries int) string {
	t.Helper()
	for try := 1; ; try++ {
		start := time.Now()
		out, err := child(ctx, run)
		var exit *exec.ExitError
		took := time.Since(start).Round(100 * time.Millisecond)
		if errors.As(err, &exit) && exit.ExitCode() == 1 {
			t.Logf("%s failed in %v (try %d)", run, took, try)
			return out
		}
		if err != nil || try == tries {
			t.Fatalf("%s must fail (exit 1) within %d tries; try %d got %v:\n%s", run, tries, try, err, out)
		}
		t.Logf("try %d: %s passed in %v", try, run, took)
	}
}

// checkKept checks the run directory the failure in text kept: its
// result.json has the fault-allowance checker invalid.
func checkKept(t *testing.T, text string) {
	t.Helper()
	m := regexp.MustCompile(`run directory: (\S+) \(open`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no run directory in:\n%s", text)
	}
	run, err := results.LoadRun(m[1])
	if err != nil || run.Result == nil {
		t.Fatalf("the kept run %s: %v (result.json: %v)", m[1], err, run != nil && run.Result != nil)
	}
	if r, ok := run.Result.Report.Result(model.CheckAllowance); !ok || r.Verdict != model.Invalid || len(r.Examples) == 0 {
		t.Errorf("the kept run %s: %s is %+v, want invalid with examples", m[1], model.CheckAllowance, r)
	}
	t.Logf("kept: %s", m[1])
}
