package locktest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// fakeMaker makes handles that are never used: the claims checks only
// look at their types.
type fakeMaker struct{ fenced bool }

type fakeLocker struct{ impl.Locker }

type fakeFenced struct{ fakeLocker }

func (fakeFenced) Token() int64 { return 0 }

func (m fakeMaker) NewLocker(string, string) impl.Locker {
	if m.fenced {
		return fakeFenced{}
	}
	return fakeLocker{}
}

func (fakeMaker) Close() error { return nil }

func fakeLock(name string, fenced, claimsFenced bool) Lock {
	return Lock{Name: name, Fenced: claimsFenced, New: func(context.Context, redis.UniversalClient, time.Duration) (impl.Maker, error) {
		return fakeMaker{fenced: fenced}, nil
	}}
}

func TestLockValidate(t *testing.T) {
	for _, tc := range []struct {
		lock Lock
		want string
	}{
		{Lock{}, "Name is empty"},
		{fakeLock("my lock", false, false), `"my lock": want letters`},
		{Lock{Name: "x"}, "New is nil"},
		{fakeLock("my-lock_1.0", false, false), ""},
	} {
		err := tc.lock.validate()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("validate(%q) = %v, want %q", tc.lock.Name, err, tc.want)
		}
	}
}

// A lock that claims Fenced must hand out impl.Fenced handles.
func TestCheckClaimsFenced(t *testing.T) {
	if err := checkClaims(fakeLock("f", false, true)); err == nil || !strings.Contains(err.Error(), "impl.Fenced") {
		t.Errorf("a Fenced claim without tokens: %v, want an error naming impl.Fenced", err)
	}
	for _, l := range []Lock{fakeLock("f", true, true), fakeLock("f", true, false), fakeLock("f", false, false)} {
		if err := checkClaims(l); err != nil {
			t.Errorf("checkClaims(fenced %v): %v", l.Fenced, err)
		}
	}
}

func TestCapabilities(t *testing.T) {
	l := Lock{Reentrant: true, Fenced: true, Watchdog: true}
	if got, want := l.capabilities(), []string{driver.CapReentrant, driver.CapFenced, driver.CapWatchdog}; !slices.Equal(got, want) {
		t.Errorf("capabilities = %v, want %v", got, want)
	}
	if s := (Lock{Name: "x"}).subject(); !s.NoWatchdog || s.Reentrant || s.Fair {
		t.Errorf("a lock claiming nothing: %+v, want a fixed lease, not reentrant, not fair", s)
	}
}

func TestRunPattern(t *testing.T) {
	for name, want := range map[string]string{
		"TestX":             "^TestX$",
		"TestX/sub.a":       `^TestX$/^sub\.a$`,
		"TestX/no-faults#1": "^TestX$/^no-faults#1$",
	} {
		if got := runPattern(name); got != want {
			t.Errorf("runPattern(%q) = %q, want %q", name, got, want)
		}
	}
}

// The driver command of a rerun line splits back into the same argv.
func TestDriverJoinRoundTrip(t *testing.T) {
	argv := []string{"/tmp/a dir/my.test", "-test.run=^TestX$/^a b$", "-x='q'", `back\slash`, "", "-locktest.serve"}
	got, err := driver.SplitCommand(driverJoin(argv))
	if err != nil || !slices.Equal(got, argv) {
		t.Errorf("SplitCommand(driverJoin(%q)) = %q, %v", argv, got, err)
	}
}

// served replaces --subject by the lock served by the test binary.
func TestServed(t *testing.T) {
	got := served([]string{"lockcheck", "run", "--scenario", "no-faults", "--subject", "mine", "--seed", "3"}, "mine", "/k/mine.test", "TestMine")
	line := strings.Join(got, " ")
	if slices.Contains(got, "--subject") || !strings.Contains(line, "--driver /k/mine.test -test.run=^TestMine$ -locktest.serve") ||
		!strings.Contains(line, "--driver-name mine --seed 3") {
		t.Errorf("served = %q", got)
	}
}

func TestBudget(t *testing.T) {
	want := DefaultBudget
	if testing.Short() {
		want = ShortBudget
	}
	if c, err := newConfig(nil); err != nil || c.budget != want {
		t.Errorf("default budget = %v, %v; want %v", c.budget, err, want)
	}
	if c, _ := newConfig([]Option{Budget(time.Second), Seed(7), Scenarios("a", "b")}); c.budget != time.Second || c.seed != 7 || len(c.scenarios) != 2 {
		t.Errorf("options not applied: %+v", c)
	}
	t.Setenv(EnvBudget, "90s")
	if c, err := newConfig([]Option{Budget(time.Second)}); err != nil || c.budget != 90*time.Second {
		t.Errorf("$%s=90s: budget %v, %v", EnvBudget, c.budget, err)
	}
	for _, bad := range []string{"ten", "-1s", "0"} {
		t.Setenv(EnvBudget, bad)
		if _, err := newConfig(nil); err == nil || !strings.Contains(err.Error(), EnvBudget) {
			t.Errorf("$%s=%s: %v, want an error naming it", EnvBudget, bad, err)
		}
	}
}

// pick runs the must-pass scenarios that fit, then the unsafe ones that
// fit (each required to stay within its fault's allowance), and says why
// it leaves each other scenario out.
func TestPick(t *testing.T) {
	subj := fakeLock("mine", false, false).subject()
	short, skipped := pick(context.Background(), subj, true, nil, nil)
	if got := names(short); !slices.Equal(got, []string{"no-faults", "partition-short", "client-stall", "process-pause"}) {
		t.Errorf("-short runs %v", got)
	}
	if !strings.Contains(strings.Join(skipped, "\n"), "restart-aof-always (not under -short)") {
		t.Errorf("skipped under -short: %v", skipped)
	}
	full, skipped := pick(context.Background(), subj, false, nil, nil)
	for _, want := range []string{"no-faults", "partition-short", "latency-short", "redis-pause-short", "restart-aof-always", "client-crash", "client-stall", "restart-no-persistence", "process-pause", "slow-reply"} {
		if !slices.Contains(names(full), want) {
			t.Errorf("%s not run (run: %v; skipped %v)", want, names(full), skipped)
		}
	}
	for _, p := range full {
		if p.run <= 0 || p.sc.Safe != (p.req.Tolerates == nil) {
			t.Errorf("runs %s (safe %v) for %v, requiring %q", p.sc.Name, p.sc.Safe, p.run, p.req.Label())
		}
	}
	all := strings.Join(skipped, "\n")
	for _, want := range []string{"sentinel-failover-idle (needs a master", "sentinel-split-brain (its 9 s runs", "partition-long (its critical sections outlast the lease"} {
		if !strings.Contains(all, want) {
			t.Errorf("skipped does not say %q: %v", want, skipped)
		}
	}
	if only, _ := pick(context.Background(), subj, true, []string{"client-stall", "latency-short", "sentinel-split-brain"}, nil); !slices.Equal(names(only), []string{"latency-short", "client-stall"}) {
		t.Errorf("Scenarios(client-stall, latency-short, sentinel-split-brain) runs %v, want latency-short, client-stall", names(only))
	}
	remote, _ := pick(context.Background(), subj, false, nil, &scenario.Remote{Redis: &redis.Options{Addr: "127.0.0.1:1"}})
	if got := names(remote); !slices.Equal(got, []string{"remote-no-faults", "remote-client-pause", "remote-client-kill"}) {
		t.Errorf("against $%s runs %v", EnvRedis, got)
	}
}

// A lock with a watchdog also runs partition-long, whose sections outlast
// the lease.
func TestPickWatchdog(t *testing.T) {
	l := fakeLock("mine", false, false)
	l.Watchdog = true
	full, skipped := pick(context.Background(), l.subject(), false, nil, nil)
	if !slices.Contains(names(full), "partition-long") {
		t.Errorf("partition-long not run for a watchdog lock (run %v; skipped %v)", names(full), skipped)
	}
}

func names(ps []planned) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.sc.Name)
	}
	return out
}
