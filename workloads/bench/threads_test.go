package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// TestRunThreads runs the Threads mode at quick scale on its own
// redis-server: every Go lock's cells are measured, with the server's own
// cost per cycle (a reentrant cycle is two EVALSHAs), and a subject whose
// driver hosts one owner per process has its 1-thread rows only, with a
// note saying why.
func TestRunThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-server (skipped with -short)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	subjects, err := Subjects(catalog.Subjects, []string{"reentrant", "fair"})
	if err != nil {
		t.Fatal(err)
	}
	oneOwner := subjects[0] // a Go lock posing as a driver without owners
	oneOwner.Name, oneOwner.Kind, oneOwner.Owners = "one-owner", subject.KindExternal, false
	subjects = append(subjects, oneOwner)
	cfg := Config{Threads: true, Rounds: 2, Duration: 150 * time.Millisecond, Uncontended: []int{1, 4}, Contended: []int{4}}
	rep, err := Run(ctx, cfg, subjects)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Threads || len(rep.Notes) != 2 || !strings.Contains(rep.Notes[0], "one-owner") {
		t.Errorf("threads %v, notes %q: want the one-owner subject's 2 cells noted", rep.Threads, rep.Notes)
	}
	if _, ok := rep.Row(false, "one-owner", 1); !ok {
		t.Error("one-owner has no 1-thread row")
	}
	if _, ok := rep.Row(false, "one-owner", 4); ok {
		t.Error("one-owner has a 4-thread row")
	}
	for _, s := range []string{"reentrant", "fair"} {
		for _, c := range []column{{false, 1}, {false, 4}, {true, 4}} {
			row, ok := rep.Row(c.contended, s, c.n)
			if !ok {
				t.Errorf("no row %s %+v", s, c)
				continue
			}
			checkRow(t, rep, row)
			checkServerCost(t, row)
		}
	}
	row, _ := rep.Row(false, "reentrant", 4)
	if per := float64(row.Server.Commands["evalsha"].Calls) / float64(row.ServerCycles); per < 1.9 || per > 2.2 {
		t.Errorf("reentrant: %.2f EVALSHA per cycle, want 2 (lock, unlock): %+v", per, row.Server.Commands)
	}
	for _, ce := range rep.Ceiling {
		if ce.ServerUsecPerCall <= 0 {
			t.Errorf("ceiling %d: no server cost", ce.Workers)
		}
	}
	var tables bytes.Buffer
	if err := rep.WriteTables(&tables); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Server cost per cycle", "Share of the server limit", "uncontended 4 threads", "note: "} {
		if !strings.Contains(tables.String(), want) {
			t.Errorf("tables lack %q", want)
		}
	}
	t.Logf("\n%s", tables.String())
}

func checkServerCost(t *testing.T, row Row) {
	t.Helper()
	if row.ServerUsecPerCycle <= 0 || row.ScriptUsecPerCycle <= 0 || row.ServerCycles <= 0 {
		t.Errorf("%s/%d: server %v µs, scripts %v µs per cycle over %d cycles", row.Subject, row.Workers, row.ServerUsecPerCycle, row.ScriptUsecPerCycle, row.ServerCycles)
	}
	if row.OfServerLimit <= 0 || row.OfServerLimit > 1.5 {
		t.Errorf("%s/%d: share of server limit %v, want in (0, 1.5]", row.Subject, row.Workers, row.OfServerLimit)
	}
}

// TestOpenSharedOneClient: the Threads mode's workers share one go-redis
// client (one connection each at most) and one Maker.
func TestOpenSharedOneClient(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-server (skipped with -short)")
	}
	srv, err := faults.StartServer(t.Context(), faults.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	subjects, err := Subjects(catalog.Subjects, []string{"reentrant"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := openShared(t.Context(), &dialer{opts: srv.Options()}, subjects[0], 6, func(i int) string { return "shared:" + string(rune('a'+i)) }, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	if len(f.rdbs) != 1 || len(f.makers) != 1 || len(f.lockers) != 6 {
		t.Fatalf("shared fleet: %d clients, %d makers, %d handles; want 1, 1, 6", len(f.rdbs), len(f.makers), len(f.lockers))
	}
	if got := f.rdbs[0].Options().PoolSize; got < 6 {
		t.Errorf("pool size %d, want >= 6 (a connection per thread)", got)
	}
}
