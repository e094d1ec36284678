package rediscover

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// TestHuntOnPastUntoldFinds: a find with the bug's signature whose replays
// do not tell the releases apart (seen once) is kept with its replays, and
// the buggy release is hunted on, on what is left of its budget, to a find
// whose replays do; when the hunt meets no other, the untold find is the
// row's again, with its replays.
func TestHuntOnPastUntoldFinds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		second     bool // the hunt on meets a second find
		wantStatus Status
	}{
		{"a second find, reproduced", true, StatusToldApart},
		{"no second find", false, StatusFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			finds := only("lib@1.0.0", func(seed int64) *fakeFind {
				switch {
				case seed == 7:
					return &fakeFind{run: 2, scenario: true, allowance: model.Invalid}
				case tc.second:
					return &fakeFind{run: 1, scenario: true, allowance: model.Invalid}
				}
				return nil
			})
			// Only the second find (seed 9) fails again when replayed.
			replay := func(_ context.Context, cfg hunt.Config, d hunt.Draw, n int) ([]hunt.Trial, error) {
				var out []hunt.Trial
				for range n {
					tr := hunt.Trial{Draw: d, Dir: "/fake/replay"}
					if d.Seed == 9 && cfg.Subject == "lib@1.0.0" {
						tr = (&fakeFind{scenario: true, allowance: model.Invalid}).trial(tr)
					}
					out = append(out, tr)
				}
				return out, nil
			}
			clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			f := &fakeHunts{clock: clock, finds: finds}
			rep, err := Run(t.Context(), Config{Bugs: []Bug{testBug("b1")}, Budget: testBudget, RunDuration: testRun, Seed: 7,
				Out: t.TempDir(), Registry: fakeRegistry(t, "lib@1.0.0", "lib@1.0.1"), Hunt: f.hunt, Replay: replay, Contrast: 3, now: clock.Now})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Rows[0]
			if got := r.Status(); got != tc.wantStatus {
				t.Fatalf("status %s, want %s (find %+v, untold %+v)", got, tc.wantStatus, r.Buggy.Find, r.Buggy.Untold)
			}
			if !tc.second {
				if r.Buggy.Find.Seed != 8 || len(r.Buggy.Untold) != 0 || r.Contrast == nil || r.Contrast.BuggyHits != 0 {
					t.Errorf("find %+v, untold %d, contrast %+v: want the first find back, with its replays", r.Buggy.Find, len(r.Buggy.Untold), r.Contrast)
				}
				return
			}
			if r.Buggy.Find.Seed != 9 || r.Buggy.Find.Run != 3 || len(r.Buggy.Untold) != 1 || r.Buggy.Untold[0].Seed != 8 ||
				r.Buggy.Untold[0].Replays == nil || r.Buggy.Untold[0].Replays.BuggyHits != 0 {
				t.Fatalf("find %+v, untold %+v: want the find of run 3 (seed 9), past run 2's (seed 8) with its replays", r.Buggy.Find, r.Buggy.Untold)
			}
			if want := 3*testRun + fakeShrink; r.Buggy.Find.Detection != want || r.Buggy.Elapsed > testBudget+2*fakeShrink {
				t.Errorf("detection %v (elapsed %v), want %v: timed on the release's own budget, not the fixed release's hunt", r.Buggy.Find.Detection, r.Buggy.Elapsed, want)
			}
			var md strings.Builder
			if err := WriteMarkdown(&md, rep); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(md.String(), "hunted on past the find(s) whose replays did not tell them apart: run 2: 0/3 / 0/3") {
				t.Errorf("the page does not name the untold find:\n%s", md.String())
			}
		})
	}
}
