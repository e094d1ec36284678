package workloads

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// dialer returns a Deps.Dial that connects straight to s.
func dialer(s *faults.Server) func(context.Context, int) (redis.UniversalClient, error) {
	return directDeps(s).Dial
}

// directDeps returns Deps that connect straight to s, each client through
// a faults.Cutter that Reconnect cuts.
func directDeps(s *faults.Server) Deps {
	cs := &faults.Cutters{}
	return Deps{
		Dial: func(_ context.Context, i int) (redis.UniversalClient, error) {
			o := s.Options()
			cs.Install(i, o)
			return redis.NewClient(o), nil
		},
		Reconnect: cs.Cut,
	}
}

// run runs cfg against s (resolving its subject in catalog.Subjects when
// deps has no registry), checks that the history written to disk reads
// back as the one in memory, and returns the result.
func run(t testing.TB, s *faults.Server, cfg RunConfig, deps Deps) *Result {
	t.Helper()
	if deps.Dial == nil {
		d := directDeps(s)
		deps.Dial, deps.Reconnect = d.Dial, d.Reconnect
	}
	if deps.Registry == nil {
		deps.Registry = catalog.Subjects
	}
	var buf bytes.Buffer
	deps.History = &buf
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Duration+2*time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg, deps)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	h, err := model.ReadHistory(&buf)
	if err != nil {
		t.Fatalf("read back the history: %v", err)
	}
	if len(h.Ops) != len(res.History.Ops) || len(h.Faults) != len(res.History.Faults) {
		t.Fatalf("history on disk has %d ops, %d faults; in memory %d, %d", len(h.Ops), len(h.Faults), len(res.History.Ops), len(res.History.Faults))
	}
	if !h.Header.Ends || h.End == nil || h.Unfinished() != "" {
		t.Fatalf("history on disk: ends %v, end record %+v: want a finished run", h.Header.Ends, h.End)
	}
	if h.Header.Meta["seed"] == "" || h.Header.Meta["plan"] == "" {
		t.Fatalf("header meta = %v", h.Header.Meta)
	}
	return res
}

// driverValidRun is how long a fault-free validity run of a lock served by
// other processes (a JVM, node or Python process per client) lasts here:
// the clients are readied before the run's clock starts, so 2 s still
// grants hundreds of times, and what costs the CPU is their start-up. make
// scoreboard runs every driver longer: no-faults (5 s) and every scenario,
// on several seeds.
const driverValidRun = 2 * time.Second

func startRedis(t testing.TB) *faults.Server {
	t.Helper()
	return redistest.Start(t, faults.ServerConfig{})
}

// summary renders a result on one line for logs.
func summary(res *Result) string {
	s := res.Stats
	return res.Subject.Name + " " + res.Plan.Workload + ": " + string(res.Report.Verdict) +
		" ops=" + itoa(s.Ops) + " granted=" + itoa(s.Granted) + " info=" + itoa(s.Info) + " sections=" + itoa(s.Sections)
}

func itoa(n int) string { return fmtInt(n) }
