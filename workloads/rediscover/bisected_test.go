package rediscover

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/bisect"
)

// A committed bisection is attached to its bug's row, and the page gives
// its boundary with the counts and the command; a row without one gives
// the catalog's since. A file holding another bug's bisection is refused.
func TestAttachBisections(t *testing.T) {
	dir := t.TempDir()
	write := func(id string, res bisect.Result) {
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, BisectFile(id)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("named", bisect.Result{Bug: "named", Good: "1.0.0", Bad: "1.4.0", LastClean: "1.1.0", FirstHas: "1.2.0", P: 0.004,
		Command:  "lockcheck bisect --bug named",
		Releases: []bisect.Release{{Name: "1.0.0", State: bisect.Clean, Runs: 5}, {Name: "1.1.0", State: bisect.Clean, Runs: 5}, {Name: "1.2.0", State: bisect.HasIt, Hits: 5, Runs: 5}}})
	write("unnamed", bisect.Result{Bug: "unnamed", Good: "1.0.0", Bad: "1.4.0", Why: "the good release 1.0.0 shows the find", Command: "lockcheck bisect --bug unnamed"})
	since := testBug("since")
	since.Since = "0.9.0"
	rep := &Report{Rows: []Row{{Bug: testBug("named")}, {Bug: testBug("unnamed")}, {Bug: since}, {Bug: testBug("none")}}}
	if err := AttachBisections(rep, dir); err != nil {
		t.Fatal(err)
	}
	if rep.Rows[0].Bisect == nil || rep.Rows[1].Bisect == nil || rep.Rows[2].Bisect != nil || rep.Rows[3].Bisect != nil {
		t.Fatalf("attached: %v %v %v %v", rep.Rows[0].Bisect, rep.Rows[1].Bisect, rep.Rows[2].Bisect, rep.Rows[3].Bisect)
	}
	for i, want := range []string{
		"**1.2.0**, bisected from 1.0.0: 1.1.0 clean (0/5 replays), 1.2.0 has it (5/5), p = 0.004 (`lockcheck bisect --bug named`)",
		"not named by bisect from 1.0.0: the good release 1.0.0 shows the find (`lockcheck bisect --bug unnamed`)",
		"0.9.0 (catalog's since)",
		"–",
	} {
		if got := introducedCell(rep.Rows[i]); got != want {
			t.Errorf("row %d: %q, want %q", i, got, want)
		}
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, rep); err != nil || !strings.Contains(md.String(), "| first release with it |") {
		t.Errorf("page (%v):\n%s", err, md.String())
	}

	write("none", bisect.Result{Bug: "named"})
	if err := AttachBisections(rep, dir); err == nil || !strings.Contains(err.Error(), "not of none") {
		t.Errorf("another bug's bisection: %v, want an error", err)
	}
	if err := AttachBisections(&Report{Rows: []Row{{Bug: testBug("named")}}}, filepath.Join(dir, "missing")); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
}

// The committed bisections (results/bisect) parse, each names the catalog
// bug of its file, and the rows of every catalog bug take them.
func TestCommittedBisections(t *testing.T) {
	c, err := LoadFile(catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "results", "bisect")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bisections in %s (%v)", dir, err)
	}
	rep := &Report{}
	for _, b := range c.Bugs {
		rep.Rows = append(rep.Rows, Row{Bug: b})
	}
	if err := AttachBisections(rep, dir); err != nil {
		t.Fatal(err)
	}
	attached := 0
	for _, r := range rep.Rows {
		if r.Bisect != nil {
			attached++
		}
	}
	if attached != len(files) {
		t.Errorf("%d of %d bisections attached to a catalog bug", attached, len(files))
	}
}
