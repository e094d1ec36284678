package rediscover

import (
	"context"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// sharingBugs are b1, whose signature (a double grant) k has too, and k,
// a bug both of b1's releases have (its fix keeps it, and it came before).
func sharingBugs(t *testing.T) (Bug, Bug) {
	b := testBug("b1")
	b.KnownInFixed = []string{"k"}
	k := testBug("k")
	k.Signature, k.Buggy, k.Fixed = sig(t, "safety/double-grant/acquire/none"), "2.0.0", "2.0.1"
	return b, k
}

// A find of the buggy release whose signature is the bug's only where a
// bug both releases have shares it is no find of the bug by its
// signatures; it becomes the row's find, marked with that bug, and counts
// only when its replays, counting the shared signature on both releases,
// tell the releases apart.
func TestASharedSignatureCountsOnlyWhenItsReplaysTellApart(t *testing.T) {
	b, k := sharingBugs(t)
	grant := sig(t, "safety/double-grant/acquire/none")
	other := Finding{Run: 3, Seed: 7, Class: NoFault, Signatures: []model.Signature{grant}}
	row := func(c *Contrast) *Report {
		return &Report{Rows: []Row{{Bug: b, Buggy: Hunted{Others: []Finding{other}}, Contrast: c}}}
	}
	rep := roundTrip(t, row(nil))
	rep.Rejudge([]Bug{b, k})
	r := rep.Rows[0]
	if r.Buggy.Find == nil || r.Buggy.Find.SharedWith != "k" || len(r.Buggy.Others) != 0 || r.Status() != StatusOther || !strings.Contains(r.Why, "not replayed") {
		t.Fatalf("find %+v, status %s (%s): want the shared find promoted, marked k, flagged for something else until replayed", r.Buggy.Find, r.Status(), r.Why)
	}
	promoted := *r.Buggy.Find
	for _, c := range []struct {
		name  string
		fixed [][]model.Signature
		want  Status
	}{
		{"the fixed release, which has k too, clean: told apart", nil, StatusToldApart},
		{"the fixed release shows it once: k may explain it", [][]model.Signature{{grant}}, StatusOther},
	} {
		t.Run(c.name, func(t *testing.T) {
			contrast := &Contrast{Runs: 3, BuggyFailed: 3, FixedFailed: len(c.fixed),
				Found: [2][][]model.Signature{{{grant}, {grant}, {grant}}, c.fixed}}
			rep := &Report{Rows: []Row{{Bug: b, Buggy: Hunted{Find: &promoted}, Contrast: contrast}}}
			rep = roundTrip(t, rep)
			rep.Rejudge([]Bug{b, k})
			r := rep.Rows[0]
			if r.Contrast == nil || r.Contrast.BuggyHits != 3 || r.Contrast.FixedHits != len(c.fixed) || r.Status() != c.want {
				t.Fatalf("contrast %+v, status %s (%s): want the shared signature counted on both sides, %s", r.Contrast, r.Status(), r.Why, c.want)
			}
			if told := strings.Contains(statusCell(r), "by its replays: its signature is also k's"); told != (c.want == StatusToldApart) {
				t.Fatalf("status cell %q: want it to say the replays told them apart only when they did", statusCell(r))
			}
		})
	}
	// A find the signatures claim comes first, and is not marked.
	mine := Finding{Run: 5, Seed: 7, Class: NoFault, Signatures: []model.Signature{sig(t, "safety/double-grant/acquire/beyond:reconnect")}}
	rep = &Report{Rows: []Row{{Bug: b, Buggy: Hunted{Others: []Finding{other, mine}}}}}
	rep.Rejudge([]Bug{b, k})
	if f := rep.Rows[0].Buggy.Find; f == nil || f.Run != 5 || f.SharedWith != "" || rep.Rows[0].Status() != StatusFound {
		t.Fatalf("find %+v, status %s: want run 5's, the bug's by its signature", f, rep.Rows[0].Status())
	}
	// The fixed release's flag with the shared signature stays k's.
	rep = &Report{Rows: []Row{{Bug: b, Fixed: Hunted{Others: []Finding{other}}}}}
	rep.Rejudge([]Bug{b, k})
	if f := rep.Rows[0].Fixed; f.Find != nil || f.Others[0].Known != "k" || rep.Rows[0].FixedOutcome != Clean {
		t.Fatalf("fixed %+v, %s: want the shared flag k's, the release clean of the bug", f, rep.Rows[0].FixedOutcome)
	}
}

// The replays of a shared find made by AddContrasts count the shared
// signature on both releases.
func TestReplaysOfASharedFindCountItOnBothSides(t *testing.T) {
	b, k := sharingBugs(t)
	plan := writePlan(t)
	find := &Finding{Command: "lockcheck run --subject lib@1.0.0 --seed 9 --duration 2s --plan " + plan, Class: NoFault, SharedWith: "k"}
	for _, c := range []struct {
		name       string
		fixedFails bool
		want       Status
	}{
		{"only the buggy release fails", false, StatusToldApart},
		{"both fail", true, StatusOther},
	} {
		t.Run(c.name, func(t *testing.T) {
			replay := func(_ context.Context, cfg hunt.Config, d hunt.Draw, n int) ([]hunt.Trial, error) {
				fail := strings.HasSuffix(cfg.Subject, "1.0.0") || c.fixedFails
				var out []hunt.Trial
				for range n {
					tr := hunt.Trial{Draw: d, Find: fail, Dir: "/fake"}
					if fail {
						tr.Report = model.Report{Verdict: model.Invalid, Results: []model.Result{{Checker: model.CheckLinearizable, Verdict: model.Invalid,
							Examples: []model.Example{exampleFor("safety/double-grant/acquire/none")}}}}
					}
					out = append(out, tr)
				}
				return out, nil
			}
			f := *find
			rep := &Report{Rows: []Row{{Bug: b,
				Buggy: Hunted{Release: Release{Name: "lib@1.0.0", Subject: "lib@1.0.0"}, Find: &f},
				Fixed: Hunted{Release: Release{Name: "lib@1.0.1", Subject: "lib@1.0.1"}}}}}
			rep.Rows[0].judge()
			cfg := Config{Contrast: 3, Replay: replay, Registry: fakeRegistry(t), Catalog: []Bug{b, k}}
			if err := AddContrasts(t.Context(), cfg, rep); err != nil {
				t.Fatal(err)
			}
			if r := rep.Rows[0]; r.Status() != c.want || strings.Contains(r.Why, "not replayed") {
				t.Fatalf("contrast %+v, status %s (%s): want %s", r.Contrast, r.Status(), r.Why, c.want)
			}
		})
	}
}
