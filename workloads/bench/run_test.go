package bench

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"
)

// TestRunAllSubjects runs the engine end to end with tiny windows on its own
// redis-server and checks the report covers every subject and cell with sane
// numbers.
func TestRunAllSubjects(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-server (skipped with -short)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	subjects := defaultSubjects(t)
	cfg := Config{Rounds: 2, Duration: 150 * time.Millisecond, Uncontended: []int{1, 3}, Contended: []int{2, 3}}
	var progress bytes.Buffer
	cfg.Progress = &progress
	rep, err := Run(ctx, cfg, subjects)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rounds != 2 || rep.Window != cfg.Duration || rep.Mode != "full" {
		t.Errorf("report config = %d rounds, %v, %q", rep.Rounds, rep.Window, rep.Mode)
	}
	if rep.Machine.RedisVersion == "" || rep.Machine.CPUs < 1 {
		t.Errorf("machine = %+v", rep.Machine)
	}
	if len(rep.Ceiling) != 3 { // 1, 2, 3 workers
		t.Fatalf("ceiling rows = %+v, want 1, 2 and 3 workers", rep.Ceiling)
	}
	for _, c := range rep.Ceiling {
		if c.CallsPerSec <= 0 || len(c.PerRound) != 2 {
			t.Errorf("ceiling %+v: want 2 rounds and calls > 0", c)
		}
	}
	if got, want := len(rep.Uncontended), 2*len(subjects); got != want {
		t.Errorf("uncontended rows = %d, want %d", got, want)
	}
	if got, want := len(rep.Contended), 2*len(subjects); got != want {
		t.Errorf("contended rows = %d, want %d", got, want)
	}
	for _, s := range subjects {
		for _, n := range cfg.Uncontended {
			row, ok := rep.Row(false, s.Name, n)
			if !ok {
				t.Errorf("no uncontended row %s/%d", s.Name, n)
				continue
			}
			checkRow(t, rep, row)
			if row.Contention != nil {
				t.Errorf("uncontended %s/%d has contention figures", s.Name, n)
			}
		}
		for _, n := range cfg.Contended {
			row, ok := rep.Row(true, s.Name, n)
			if !ok {
				t.Errorf("no contended row %s/%d", s.Name, n)
				continue
			}
			checkRow(t, rep, row)
			c := row.Contention
			if c == nil {
				t.Errorf("contended %s/%d has no contention figures", s.Name, n)
				continue
			}
			if c.OwnerChange < 0 || c.OwnerChange > 1 {
				t.Errorf("%s/%d owner change = %v, want in [0,1]", s.Name, n, c.OwnerChange)
			}
			if len(c.Workers) != n {
				t.Errorf("%s/%d has %d worker waits, want %d", s.Name, n, len(c.Workers), n)
			}
			var grants int64
			for _, w := range c.Workers {
				grants += w.Grants
				if w.P50 > w.P99 || w.P99 > w.Max || w.Max > c.MaxWait {
					t.Errorf("%s/%d worker waits out of order: %+v (max wait %v)", s.Name, n, w, c.MaxWait)
				}
			}
			if grants < row.Cycles {
				t.Errorf("%s/%d: %d grants by worker < %d cycles", s.Name, n, grants, row.Cycles)
			}
			if c.Handoffs > 0 && (c.HandoffP50 <= 0 || c.HandoffP50 > c.HandoffP99) {
				t.Errorf("%s/%d hand-off p50 %v, p99 %v", s.Name, n, c.HandoffP50, c.HandoffP99)
			}
			if s.Fair && c.Overtakes != 0 {
				t.Errorf("fair subject %s/%d: %d overtakes without faults", s.Name, n, c.Overtakes)
			}
		}
	}
	var tables bytes.Buffer
	if err := rep.WriteTables(&tables); err != nil {
		t.Fatal(err)
	}
	for _, s := range subjects {
		if !bytes.Contains(tables.Bytes(), []byte(s.Name)) {
			t.Errorf("tables do not mention %s", s.Name)
		}
	}
	t.Logf("\n%s", tables.String())
}

func checkRow(t *testing.T, rep *Report, row Row) {
	t.Helper()
	if row.Cycles <= 0 || row.CyclesPerSec <= 0 || len(row.PerRound) != 2 {
		t.Errorf("%s/%d: cycles %d, %v/s, rounds %v: want cycles in both rounds", row.Subject, row.Workers, row.Cycles, row.CyclesPerSec, row.PerRound)
	}
	// The share is of the ceiling measured beside it; its size is a
	// measurement (a loaded machine put a cell at 178 % of a ceiling once).
	ce, ok := rep.ceiling(row.Workers)
	if want := row.CyclesPerSec / ce.CycleCeiling(); !ok || row.OfCeiling <= 0 || math.Abs(row.OfCeiling-want) > 1e-9*want {
		t.Errorf("%s/%d: of ceiling = %v, want %v/s over the ceiling's %v/s", row.Subject, row.Workers, row.OfCeiling, row.CyclesPerSec, ce.CycleCeiling())
	}
	// A loaded machine (-race, other tests) can time a call out (1 s socket
	// timeouts): errors are reported, not fatal, unless they dominate.
	if row.Errors > 0 {
		t.Logf("%s/%d: %d errors, first: %s", row.Subject, row.Workers, row.Errors, row.FirstError)
	}
	if row.Errors*10 > row.Cycles {
		t.Errorf("%s/%d: %d errors for %d cycles, first: %s", row.Subject, row.Workers, row.Errors, row.Cycles, row.FirstError)
	}
}
