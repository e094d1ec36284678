package userlock_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/userlock"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/locktest"
)

var planted = flag.Bool("userlock.planted", false, "run TestPlantedBug, which fails on purpose (TestPlantedBugIsCaught runs it so)")

// TestPlantedBug is the same suite on the lock with the planted bug. It
// fails, so it runs only when TestPlantedBugIsCaught asks for it.
func TestPlantedBug(t *testing.T) {
	if !*planted {
		t.Skip("fails on purpose: TestPlantedBugIsCaught runs it (-userlock.planted)")
	}
	locktest.Run(t, plantedLock)
}

var plantedLock = locktest.Lock{
	Name: "planted",
	New: func(_ context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
		return userlock.NewPlanted(rdb, lease), nil
	},
}

// TestPlantedBugHunt hunts the planted bug for 8 s. It fails, so it runs
// only when TestPlantedBugIsCaught asks for it.
func TestPlantedBugHunt(t *testing.T) {
	if !*planted {
		t.Skip("fails on purpose: TestPlantedBugIsCaught runs it (-userlock.planted)")
	}
	locktest.Hunt(t, plantedLock, 8*time.Second, locktest.Seed(1))
}

// TestPlantedBugIsCaught runs TestPlantedBug in a test binary of its own
// and checks its failure: exit status 1 (soon under -short), the
// checkers' explanation, a shrunk plan, the kept run directory, a
// -locktest.seed line whose first draw fails again, and a `lockcheck run`
// line that fails again when run; then the same of a Hunt.
func TestPlantedBugIsCaught(t *testing.T) {
	if *planted {
		t.Skip("this is the test binary TestPlantedBugIsCaught runs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	text := failed(t, ctx, "^TestPlantedBug$")
	took := time.Since(start)
	t.Logf("the planted bug failed its test in %v", took.Round(100*time.Millisecond))
	// Under -short the budget is 8 s (about 6 s on an idle machine, more
	// beside other tests); half the default 60 s means -short was ignored.
	if testing.Short() && took > 30*time.Second {
		t.Errorf("under -short the planted bug took %v to fail, want its 8 s budget (and a loaded machine's delays)", took)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`planted FAILED scenario [a-z-]+ \(seed \d+`),
		regexp.MustCompile(`(linearizable|mutual-exclusion) +invalid \(safety\)`), // the explanation
		regexp.MustCompile(`op +p\d+ (acquire|release) `),                         // the ops that conflict
		regexp.MustCompile(`-locktest\.seed=\d+`),
		regexp.MustCompile(`run directory: \S+`),
	} {
		if !want.MatchString(text) {
			t.Errorf("the failure does not say %s:\n%s", want, text)
		}
	}
	checkShrunk(t, text)
	checkReplay(t, ctx, text)
	lockcheck := buildLockcheck(t, ctx)
	checkRerun(t, ctx, lockcheck, text)
	t.Run("hunt", func(t *testing.T) {
		text := failed(t, ctx, "^TestPlantedBugHunt$")
		for _, want := range []string{"hunt planted FOUND in run", "invalid (safety)", "run directory: ", "lockcheck run "} {
			if !strings.Contains(text, want) {
				t.Errorf("the hunt's failure does not say %q:\n%s", want, text)
			}
		}
		checkRerun(t, ctx, lockcheck, text)
	})
}

// checkReplay reruns the test with the -run and -locktest.seed of the
// failure's report: its very first draw must fail.
func checkReplay(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	m := regexp.MustCompile(`rerun this test .*: go test -run '([^']+)' (-locktest\.seed=\d+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no go test -locktest.seed line in:\n%s", text)
	}
	run := m[1]
	out := failed(t, ctx, run, m[2])
	if !regexp.MustCompile(`failed on draw 1 \(`).MatchString(out) {
		t.Errorf("-run=%s %s: the first draw did not fail:\n%s", run, m[2], out)
	}
	t.Logf("replay: go test -run='%s' %s: the first draw failed again", run, m[2])
}

// failed runs the tests run matches in a test binary of its own
// (-userlock.planted, -short if given, and extra) and returns its output;
// they must fail (exit 1).
func failed(t *testing.T, ctx context.Context, run string, extra ...string) string {
	t.Helper()
	out, err := child(ctx, run, extra...)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("%s must fail (exit 1); got %v:\n%s", run, err, out)
	}
	return out
}

// child runs the tests run matches in a test binary of its own
// (-userlock.planted, -short if given, and extra): their output and exit.
func child(ctx context.Context, run string, extra ...string) (string, error) {
	args := append([]string{"-test.run=" + run, "-userlock.planted", "-test.timeout=5m"}, extra...)
	if testing.Short() {
		args = append(args, "-test.short")
	}
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0") // a -race binary otherwise sleeps 1 s at exit
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// checkShrunk checks that the reported plan is no bigger than the first
// failing one, and small: at most 3 processes.
func checkShrunk(t *testing.T, text string) {
	t.Helper()
	first := regexp.MustCompile(`failed on draw \d+ \(\S+\), a run of (\d+) processes`).FindStringSubmatch(text)
	shrunk := regexp.MustCompile(`plan \(shrunk: [^\n]*?\): (\{.*\})`).FindStringSubmatch(text)
	if first == nil || shrunk == nil {
		t.Fatalf("no first failing plan or no shrunk plan in:\n%s", text)
	}
	var plan workloads.Plan
	if err := json.Unmarshal([]byte(shrunk[1]), &plan); err != nil {
		t.Fatalf("shrunk plan: %v", err)
	}
	n, _ := strconv.Atoi(first[1])
	t.Logf("first failing run: %d processes; shrunk: %d processes, %d%% stray unlocks, %d%% TryLocks", n, plan.Processes, plan.StrayUnlockPercent, plan.TryLockPercent)
	if strings.Contains(text, "out of time to shrink") {
		// The -short budget ran out first (a loaded machine's runs are
		// slow): the report says so, and the plan may still be large.
		t.Logf("shrinking was cut short by the budget, as the report says")
		if plan.Processes > n {
			t.Errorf("shrunk plan has %d processes, more than the first failing run's %d", plan.Processes, n)
		}
		return
	}
	if plan.Processes > n || plan.Processes > 3 {
		t.Errorf("shrunk plan has %d processes (first failing run: %d), want <= min(3, %d)", plan.Processes, n, n)
	}
}

// buildLockcheck builds lockcheck in its own module (the folder this
// module's go.mod replaces it with), as a user installs the CLI apart from
// the library, and returns the directory that holds the binary.
func buildLockcheck(t *testing.T, ctx context.Context) string {
	t.Helper()
	dir, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/lockcheck/lockcheck").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/lockcheck/lockcheck: %v", err)
	}
	bin := t.TempDir()
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "lockcheck"), "./cmd/lockcheck")
	build.Dir = strings.TrimSpace(string(dir))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build lockcheck: %v\n%s", err, out)
	}
	return bin
}

// checkRerun runs the `lockcheck run` line of the failure in text with
// the lockcheck in bin: it must fail again (exit 1, a verdict invalid).
func checkRerun(t *testing.T, ctx context.Context, bin, text string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*(lockcheck run .*--driver .*)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no `lockcheck run` line in:\n%s", text)
	}
	// Runs are not deterministic (the machine picks the interleaving):
	// the line may take a few tries.
	for try := 1; ; try++ {
		rerun := exec.CommandContext(ctx, "sh", "-c", m[1])
		rerun.Dir = t.TempDir() // its results/ directory
		rerun.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := rerun.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 && strings.Contains(string(out), "invalid (safety)") {
			t.Logf("rerun: %s: failed again (exit 1) in try %d", m[1], try)
			return
		}
		if try == 3 {
			t.Fatalf("the rerun line must fail again (exit 1, invalid) within 3 tries; the last got %v:\n%s\n%s", err, m[1], out)
		}
	}
}
