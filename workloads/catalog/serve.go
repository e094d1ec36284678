package catalog

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// ServeEnv, set to a subject's name in a process's environment, makes a
// binary that calls ServeFromEnv first serve that subject over the driver
// protocol instead of doing what it does otherwise (SelfServe).
const ServeEnv = "LOCKCHECK_SERVE_SUBJECT"

// Serve serves the Go subject s over the driver protocol on in and out
// until in ends: one logical client, its lock opened with each hello's
// watchdog lease and seed. It returns an error for a subject that is not a
// Go lock (an external driver, a mixed fleet, a semaphore).
func Serve(ctx context.Context, s subject.Subject, in io.Reader, out io.Writer) error {
	if s.Kind == subject.KindExternal || len(s.Parts) > 0 || s.Open == nil && s.Configure == nil {
		return fmt.Errorf("subject %s is not a Go lock", s.Name)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// A driver is one logical client doing one request at a time; with
		// one driver process per client, more Ps only add idle-P spinning
		// and wake-ups across processes (measured: 0.72x -> 0.83x of the
		// in-process lock's grants/s on 2 cores).
		runtime.GOMAXPROCS(1)
	}
	return driver.Serve(ctx, in, out, driver.Served{
		Banner: driver.Banner{Driver: "lockcheck-" + s.Name, Version: moduleVersion(), Capabilities: DriverCapabilities(s)},
		Open: func(watchdog time.Duration, seed int64) impl.MakerFunc {
			mf, _ := s.MakerFor(subject.OpenOptions{WatchdogLease: watchdog, Seed: seed})
			return mf
		},
	})
}

// ServeFromEnv serves, when ServeEnv is set, that subject of reg on stdin
// and stdout and exits the process (0, or 1 after an error); otherwise it
// returns at once. Call it first in a test binary's TestMain to let
// SelfServe run the binary as a driver.
func ServeFromEnv(reg *subject.Registry) {
	name := os.Getenv(ServeEnv)
	if name == "" {
		selfServing.Store(true)
		return
	}
	s, err := reg.Lookup(name)
	if err == nil {
		err = Serve(context.Background(), s, os.Stdin, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lockcheck serve:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// SelfServe is a workloads.Deps.Serve that runs this very binary, which
// must call ServeFromEnv first, as the driver of a Go subject.
func SelfServe(name string) (argv, env []string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	// GORACE: a race-enabled binary otherwise sleeps 1 s at exit.
	return []string{exe}, []string{ServeEnv + "=" + name, "GORACE=atexit_sleep_ms=0"}, nil
}

// selfServing is set once ServeFromEnv returned: the binary can serve its
// Go subjects (SelfServer).
var selfServing atomic.Bool

// SelfServer returns ServedBy(SelfServe) when this binary called
// ServeFromEnv at its start, else nil: a workloads.Deps.Serve for the
// binaries that can serve their Go subjects in processes of their own.
func SelfServer() subject.Server {
	if selfServing.Load() {
		return ServedBy(SelfServe)
	}
	return nil
}

// ServedBy is the subject.Server whose processes command names for each
// subject (argv, and what to add to the environment): a driver process per
// owner (impl/driver), announcing what the subject claims.
func ServedBy(command func(name string) (argv, env []string, err error)) subject.Server {
	return func(s subject.Subject, o subject.OpenOptions) (impl.MakerFunc, error) {
		argv, env, err := command(s.Name)
		if err != nil {
			return nil, err
		}
		return driver.Open(driver.Options{
			Command: argv, Env: env, Name: s.Name, Capabilities: DriverCapabilities(s),
			WatchdogLease: o.WatchdogLease, Seed: o.Seed, OnStall: o.OnStall,
		}), nil
	}
}

// DriverCapabilities are what a Go subject announces when served over the
// driver protocol (`lockcheck driver NAME`, process pauses): the claims its
// registration makes (a watchdog unless NoWatchdog, as the Go peers'
// adapters extend their holds; fencing tokens when Fenced).
func DriverCapabilities(s subject.Subject) []string {
	var caps []string
	if s.Reentrant {
		caps = append(caps, driver.CapReentrant)
	}
	if !s.NoWatchdog {
		caps = append(caps, driver.CapWatchdog)
	}
	if s.Fair {
		caps = append(caps, driver.CapFair)
	}
	if s.Fenced {
		caps = append(caps, driver.CapFenced)
	}
	return caps
}

// moduleVersion is the binary's module version ("(devel)" in a checkout).
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "unknown"
}
