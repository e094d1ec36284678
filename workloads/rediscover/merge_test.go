package rediscover

import (
	"github.com/lockcheck/lockcheck/model"

	"bytes"
	"errors"
	"reflect"
	"testing"
)

// TestMergeEqualsOneRun: two rediscoveries over halves of the bugs, merged
// (through their JSON), are the rediscovery of all of them: the same rows
// in the same order and the same totals.
func TestMergeEqualsOneRun(t *testing.T) {
	bugs := []Bug{testBug("b1"), testBug("b2"), testBug("b3")}
	finds := only("lib@1.0.0", func(int64) *fakeFind { return &fakeFind{run: 2, steps: []string{"shorten"}} })
	names := []string{"lib@1.0.0", "lib@1.0.1"}
	whole, _, _ := rediscover(t, bugs, finds, nil, names...)
	a, _, _ := rediscover(t, bugs[:2], finds, nil, names...)
	b, _, _ := rediscover(t, bugs[2:], finds, nil, names...)
	merged, err := Merge(roundTrip(t, a), roundTrip(t, b))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(merged.Totals, whole.Totals) || len(merged.Rows) != len(whole.Rows) {
		t.Fatalf("merged totals %+v (%d rows), want %+v (%d rows)", merged.Totals, len(merged.Rows), whole.Totals, len(whole.Rows))
	}
	for i := range whole.Rows {
		if merged.Rows[i].Bug.ID != whole.Rows[i].Bug.ID || merged.Rows[i].Outcome != whole.Rows[i].Outcome {
			t.Errorf("row %d: %s %s, want %s %s", i, merged.Rows[i].Bug.ID, merged.Rows[i].Outcome, whole.Rows[i].Bug.ID, whole.Rows[i].Outcome)
		}
	}
	// A bug hunted again keeps its last row, counted once.
	again, err := Merge(a, a)
	if err != nil || len(again.Rows) != 2 || again.Totals.Bugs != 2 {
		t.Fatalf("a merged with itself: %d rows, totals %+v, %v; want 2 rows", len(again.Rows), again.Totals, err)
	}
}

func TestMergeRefusesOtherSettings(t *testing.T) {
	a := &Report{Seed: 1, Budget: testBudget, RunDuration: testRun}
	b := *a
	b.Seed = 2
	if _, err := Merge(a, &b); !errors.Is(err, ErrConfig) {
		t.Fatalf("reports of seeds 1 and 2 merged (%v): want ErrConfig", err)
	}
	if _, err := Merge(); !errors.Is(err, ErrConfig) {
		t.Fatalf("nothing merged (%v): want ErrConfig", err)
	}
}

// A later report's row of a release not run (a merged page's Cover row)
// does not replace the row of a bug that an earlier one hunted; a hunted
// row replaces one not run, and a later hunted row the earlier one.
func TestMergeKeepsHuntedRows(t *testing.T) {
	hunted := func(run int) Row {
		return Row{Bug: testBug("b1"), Outcome: Found, Buggy: Hunted{Find: &Finding{Run: run, Class: NoFault}}}
	}
	notRun := Row{Bug: testBug("b1"), Outcome: NotRun, Buggy: Hunted{Release: Release{NotRun: "no hunt yet"}}}
	report := func(rows ...Row) *Report {
		return &Report{Seed: 1, Budget: testBudget, RunDuration: testRun, Rows: rows}
	}
	for _, c := range []struct {
		name    string
		reps    []*Report
		wantRun int // the kept row's find's run; 0: not run
	}{
		{"a cover row after a hunted one", []*Report{report(hunted(3)), report(notRun)}, 3},
		{"a hunted row after a cover row", []*Report{report(notRun), report(hunted(4))}, 4},
		{"a later hunt", []*Report{report(hunted(3)), report(hunted(5))}, 5},
	} {
		out, err := Merge(c.reps...)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if f := out.Rows[0].Buggy.Find; f != nil {
			got = f.Run
		}
		if len(out.Rows) != 1 || got != c.wantRun {
			t.Errorf("%s: rows %d, kept the find of run %d, want %d", c.name, len(out.Rows), got, c.wantRun)
		}
	}
}

func roundTrip(t *testing.T, rep *Report) *Report {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	out, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A row judged again against the catalog as it is now sorts its finds by
// the signatures the catalog states: a find that was the bug's under one
// signature is an other find under another, and the fixed release's
// flag with it is no longer the bug's. Cover lists the bugs not hunted.
func TestRejudge(t *testing.T) {
	finds := func(string, int64) *fakeFind { return &fakeFind{run: 1, steps: []string{"shorten"}} }
	rep, _, _ := rediscover(t, []Bug{testBug("b1")}, finds, nil, "lib@1.0.0", "lib@1.0.1")
	if rep.Rows[0].FixedOutcome != Flagged || rep.Totals.FixedFlagged != 1 || rep.Rows[0].Outcome != Found {
		t.Fatalf("fixed %s, totals %+v: want found, and flagged", rep.Rows[0].FixedOutcome, rep.Totals)
	}
	rep = roundTrip(t, rep)
	b := testBug("b1")
	b.Property, b.Signature = model.ClassRefusal, sig(t, "refusal/refused-free/acquire/*")
	rep.Rejudge([]Bug{b, testBug("b9")})
	r := rep.Rows[0]
	if r.Outcome != OtherFind || r.FixedOutcome != FlaggedOther || rep.Totals.FixedFlagged != 0 || len(rep.Rows) != 1 {
		t.Fatalf("%s, fixed %s, totals %+v: want both flagged for something else", r.Outcome, r.FixedOutcome, rep.Totals)
	}
	rep.Rows[0].Buggy.Allowed = []Finding{{Run: 2, Class: Allowed, Known: "renamed", Signatures: []model.Signature{sig(t, "refusal/refused-free/acquire/none")}}}
	rep.Rejudge([]Bug{b, testBug("b9")})
	if k := rep.Rows[0].Buggy.Allowed[0].Known; k != "" {
		t.Fatalf("an allowed find's known bug %q: want it judged again (none: it is the bug's own signature)", k)
	}
	gone := roundTrip(t, rep)
	gone.Rejudge([]Bug{testBug("b9")})
	if len(gone.Rows) != 0 || gone.Totals.Bugs != 0 {
		t.Fatalf("rows %+v, totals %+v: want the row of a bug the catalog no longer holds dropped", gone.Rows, gone.Totals)
	}
	rep.Cover([]Bug{b, testBug("b9")}, "no hunt yet")
	if len(rep.Rows) != 2 || rep.Rows[1].Bug.ID != "b9" || rep.Rows[1].Status() != StatusNotRun || rep.Totals.NotRun != 1 {
		t.Fatalf("covered: %+v, totals %+v: want b9 added, not run", rep.Rows, rep.Totals)
	}
}

// TestRejudgeContrast: a contrast's hits are counted again from its
// replays' signatures when the bug's signature changes; one recorded
// without them is kept under the same signature and dropped under
// another, and a contrast of a find that is no longer the bug's is
// dropped whatever it recorded.
func TestRejudgeContrast(t *testing.T) {
	grant, never := sig(t, "safety/double-grant/acquire/none"), sig(t, "safety/watchdog-never-renewed/acquire/none")
	find := &Finding{Run: 1, Seed: 7, Class: NoFault, Signatures: []model.Signature{grant, never}}
	row := func(c *Contrast) *Report {
		return &Report{Rows: []Row{{Bug: testBug("b1"), Buggy: Hunted{Find: find}, Contrast: c}}}
	}
	recorded := func() *Contrast { // 3 of 3 replays with a double grant, 2 never renewed; the fixed: 1 double grant
		return &Contrast{Runs: 3, BuggyHits: 3, FixedHits: 1, BuggyFailed: 3, FixedFailed: 1,
			Found: [2][][]model.Signature{{{grant, never}, {grant}, {grant, never}}, {{grant}}}}
	}
	legacy := func() *Contrast {
		return &Contrast{Runs: 3, BuggyHits: 3, FixedHits: 1, BuggyFailed: 3, FixedFailed: 1}
	}
	narrowed := testBug("b1")
	narrowed.Signature = sig(t, "safety/watchdog-never-renewed/*/*")
	onlyGrant := testBug("b1")
	onlyGrant.Signature = sig(t, "refusal/refused-free/*/*")
	sharing := testBug("b1") // its fix keeps k, whose double grants without a fault look the same
	sharing.AlsoSignatures, sharing.KnownInFixed = []model.Signature{never}, []string{"k"}
	k := testBug("k")
	k.Signature, k.Buggy, k.Fixed = grant, "2.0.0", "2.0.1"
	for _, c := range []struct {
		name       string
		contrast   *Contrast
		bug        Bug
		others     []Bug
		kept       bool
		buggy, fix int
	}{
		{"recorded, the signature narrowed: counted again", recorded(), narrowed, nil, true, 2, 0},
		{"recorded, the same signature", recorded(), testBug("b1"), nil, true, 3, 1},
		{"legacy, the same signature: kept", legacy(), testBug("b1"), nil, true, 3, 1},
		{"legacy, the signature narrowed: dropped", legacy(), narrowed, nil, false, 0, 0},
		{"recorded, its find no longer the bug's: dropped", recorded(), onlyGrant, nil, false, 0, 0},
		{"recorded, a bug both releases have explains the double grants: only the watchdog's count", recorded(), sharing, []Bug{k}, true, 2, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := roundTrip(t, row(c.contrast)) // as a merge reads it
			rep.Rejudge(append([]Bug{c.bug}, c.others...))
			got := rep.Rows[0].Contrast
			if (got != nil) != c.kept {
				t.Fatalf("contrast %+v: want kept %v", got, c.kept)
			}
			if got != nil && (got.BuggyHits != c.buggy || got.FixedHits != c.fix) {
				t.Fatalf("hits %d / %d, want %d / %d", got.BuggyHits, got.FixedHits, c.buggy, c.fix)
			}
		})
	}
}
