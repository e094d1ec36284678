package bench

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// TestWireTable: each wired twin's cycles/s is divided by its direct
// subject's, cell by cell, "-" where a side lacks the cell; a report
// measured without --wire has no such table.
func TestWireTable(t *testing.T) {
	subjects, err := Subjects(catalog.Subjects, []string{"reentrant", "fair"})
	if err != nil {
		t.Fatal(err)
	}
	measured, wired := withWired(subjects, true)
	if len(measured) != 4 || measured[1].Name != "reentrant (wire)" || !wired[1] || wired[2] || measured[1].Open == nil {
		t.Fatalf("withWired: %v, %v", measured, wired)
	}
	r := &Report{Wire: true}
	for _, s := range measured {
		r.Subjects = append(r.Subjects, SubjectInfo{Name: s.Name})
	}
	r.Uncontended = []Row{
		{Subject: "reentrant", Workers: 1, CyclesPerSec: 1000}, {Subject: "reentrant (wire)", Workers: 1, CyclesPerSec: 900},
		{Subject: "fair", Workers: 1, CyclesPerSec: 800}, {Subject: "fair (wire)", Workers: 1, CyclesPerSec: 760},
	}
	r.Contended = []Row{{Subject: "reentrant", Workers: 8, CyclesPerSec: 400}, {Subject: "reentrant (wire)", Workers: 8, CyclesPerSec: 380}}
	got := r.WireRatios()
	want := []WireRatio{{"reentrant", false, 1, 0.9}, {"reentrant", true, 8, 0.95}, {"fair", false, 1, 0.95}}
	if len(got) != len(want) {
		t.Fatalf("WireRatios = %+v, want %+v", got, want)
	}
	for i := range want {
		if g, w := got[i], want[i]; g.Subject != w.Subject || g.Contended != w.Contended || g.N != w.N || g.Ratio < w.Ratio-1e-9 || g.Ratio > w.Ratio+1e-9 {
			t.Errorf("WireRatios[%d] = %+v, want %+v", i, g, w)
		}
	}
	tab, ok := r.wireTable()
	if !ok || len(tab.rows) != 2 || strings.Join(tab.rows[0], " ") != "reentrant 0.90× 0.95×" || strings.Join(tab.rows[1], " ") != "fair 0.95× -" {
		t.Errorf("wire table %v: %q", ok, tab.rows)
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Wire trace overhead", "Wire trace overhead:\n"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("markdown lacks %q", w)
		}
	}
	if _, ok := (&Report{Subjects: r.Subjects[:1], Uncontended: r.Uncontended[:1]}).wireTable(); ok {
		t.Error("a report without wired subjects has a wire table")
	}
}

// TestWireDialer: a wired dialer puts a Wire of its own in front of each
// client and records what it sees as a run records its trace (into a
// file); close stops the Wires and removes the file. A direct dialer
// hands out the server's address.
func TestWireDialer(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-server (skipped with -short)")
	}
	srv, err := faults.StartServer(t.Context(), faults.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	direct, err := newDialer(srv.Options(), false)
	if err != nil {
		t.Fatal(err)
	}
	if o, err := direct.options(0); err != nil || o.Addr != srv.Options().Addr || direct.close() != nil {
		t.Errorf("direct options: %v, %v", o, err)
	}

	t.Setenv("TMPDIR", t.TempDir())
	d, err := newDialer(srv.Options(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.close() })
	for i := range 2 {
		o, err := d.options(i)
		if err != nil {
			t.Fatal(err)
		}
		if o.Addr == srv.Options().Addr {
			t.Fatalf("client %d dials the server directly", i)
		}
		rdb := redis.NewClient(o)
		err = rdb.Ping(t.Context()).Err()
		_ = rdb.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	d.trace.mu.Lock()
	var opens, pings []model.WireEvent
	for _, e := range d.trace.events {
		switch {
		case e.Kind == "open":
			opens = append(opens, e)
		case e.Cmd == "PING" && e.Return > 0:
			pings = append(pings, e)
		}
	}
	nwires := len(d.trace.wires)
	d.trace.mu.Unlock()
	if nwires != 2 || len(opens) < 2 || len(pings) != 2 || pings[0].Client != 0 || pings[1].Client != 1 {
		t.Errorf("%d wires; opens %+v, pings %+v: want each client's open and answered PING", nwires, opens, pings)
	}
	file := d.trace.file.Name()
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	if err := d.close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("trace file %s after close: %v", file, err)
	}
}
