package rediscover

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// TestAddContrasts: a buggy find's own draw (its scenario, or its plan
// file) is replayed on both releases; it tells them apart only when it
// fails with the bug's signature in most of the buggy release's replays
// and in none of the fixed one's, and a command that cannot be replayed
// says why.
func TestAddContrasts(t *testing.T) {
	plan := writePlan(t)
	row := func(id, cmd string) Row {
		bug := testBug(id)
		return Row{Bug: bug, Outcome: Found,
			Buggy: Hunted{Release: Release{Name: "lib@1.0.0", Subject: "lib@1.0.0"}, Find: &Finding{Command: cmd, Class: NoFault}},
			Fixed: Hunted{Release: Release{Name: "lib@1.0.1", Subject: "lib@1.0.1"}}}
	}
	rep := &Report{Rows: []Row{
		row("b1", "lockcheck run --scenario no-faults --subject lib@1.0.0 --seed 9 --duration 5s"),
		row("b2", "lockcheck run --subject lib@1.0.0 --seed 9 --duration 2s --plan "+plan),
		row("b3", "lockcheck run --subject 'lib@1.0.0' --seed 9"),
		{Bug: testBug("b4"), Buggy: Hunted{Release: Release{Subject: "lib@1.0.0"}}},
		row("b5", "lockcheck run --scenario client-interrupt --subject lib@1.0.0 --seed 9 --duration 5s"),
	}}
	var replayed []string
	replay := func(_ context.Context, cfg hunt.Config, d hunt.Draw, n int) ([]hunt.Trial, error) {
		replayed = append(replayed, cfg.Subject+" "+d.Describe())
		var out []hunt.Trial
		for i := range n {
			// b1's scenario fails on the buggy release only; b2's plan
			// fails once on each.
			fail := (d.Scenario != nil && strings.HasSuffix(cfg.Subject, "1.0.0")) || (d.Scenario == nil && i == 0)
			tr := hunt.Trial{Draw: d, Find: fail, Dir: "/fake"}
			if fail {
				tr.Report = model.Report{Verdict: model.Invalid, Results: []model.Result{{Checker: model.CheckLinearizable, Verdict: model.Invalid,
					Examples: []model.Example{exampleFor(defaultSig)}}}}
			}
			if d.Scenario != nil && fail {
				// b5's scenario fails with a refusal, not the bug's signature.
				sig := "safety/double-grant/acquire/beyond:" + d.Scenario.Name
				if d.Scenario.Name == "client-interrupt" {
					sig = "refusal/refused-free/acquire/beyond:client-interrupt"
				}
				tr.Report.Results = []model.Result{{Checker: model.CheckAllowance, Verdict: model.Invalid, Examples: []model.Example{exampleFor(sig)}}}
			}
			out = append(out, tr)
		}
		return out, nil
	}
	if err := AddContrasts(t.Context(), Config{Contrast: 3, Replay: replay, Registry: fakeRegistry(t)}, rep); err != nil {
		t.Fatal(err)
	}
	c1, c2, c3, c5 := rep.Rows[0].Contrast, rep.Rows[1].Contrast, rep.Rows[2].Contrast, rep.Rows[4].Contrast
	if c1 == nil || !c1.TellsApart() || c1.BuggyHits != 3 || c1.FixedHits != 0 || math.Abs(c1.P-0.05) > 1e-9 || c1.Seed != 9 {
		t.Errorf("b1's scenario, failing on the buggy release only: %+v, want it to tell them apart, p 0.05", c1)
	}
	if c2 == nil || c2.TellsApart() || c2.BuggyFailed != 1 || c2.FixedFailed != 1 || c2.BuggyHits != 1 || math.Abs(c2.P-0.8) > 1e-9 {
		t.Errorf("b2's plan, failing once on each: %+v, want 1 and 1 (p 0.8), not telling them apart", c2)
	}
	if c2 == nil || c2.Duration != 8*time.Second || c2.Short == nil || c2.Short.Hits != 1 || c2.Short.Duration != 2*time.Second {
		t.Errorf("b2's plan, 1 hit of 3 for 2s: %+v, want it replayed again for 8s, its first replays set aside", c2)
	}
	if c3 == nil || c3.Err == "" || c3.TellsApart() {
		t.Errorf("b3's quoted command: %+v, want an error", c3)
	}
	if rep.Rows[3].Contrast != nil {
		t.Errorf("b4, no find: replayed %+v", rep.Rows[3].Contrast)
	}
	if c5 == nil || c5.TellsApart() || c5.BuggyFailed != 3 || c5.BuggyHits != 0 {
		t.Errorf("b5's scenario, failing 3 of 3 with another signature: %+v, want no hit", c5)
	}
	if len(replayed) != 8 || !strings.Contains(replayed[0], "scenario no-faults 5s") || !strings.Contains(replayed[2], "hunt 2s") ||
		!strings.Contains(replayed[3], "hunt 8s") || !strings.Contains(replayed[4], "1.0.1 hunt 8s") || !strings.Contains(replayed[7], "1.0.1 scenario client-interrupt 20s") {
		t.Errorf("replays %q: want b1's scenario on both releases, b2's plan and b5's scenario on the buggy one, then for 4 times as long on both", replayed)
	}
	if tot := rep.Totals; tot.Contrasted != 4 || tot.ToldApart != 1 {
		t.Errorf("totals %+v: want 4 contrasted, 1 told apart", tot)
	}
}

// A find that hits in too few of its replays is replayed again for longer
// on the buggy release, and both releases are then counted at that length:
// a rare bug is told apart when the longer runs show it in most and the
// fixed release in none, and not when the fixed release shows it too.
func TestLengthenedReplays(t *testing.T) {
	find := &Finding{Command: "lockcheck run --scenario no-faults --subject lib@1.0.0 --seed 9 --duration 10s", Class: NoFault}
	for _, tc := range []struct {
		name        string
		fixedFails  bool
		wantApart   bool
		wantReplays []string
	}{
		{"fixed clean", false, true, []string{"1.0.0 10s", "1.0.0 40s", "1.0.1 40s"}},
		{"fixed shows it", true, false, []string{"1.0.0 10s", "1.0.0 40s", "1.0.1 40s"}},
	} {
		var replayed []string
		replay := func(_ context.Context, cfg hunt.Config, d hunt.Draw, n int) ([]hunt.Trial, error) {
			replayed = append(replayed, strings.TrimPrefix(cfg.Subject, "lib@")+" "+d.Duration.String())
			var out []hunt.Trial
			for i := range n {
				// One replay in n shows the bug for 10s, all of them for 40s.
				fail := (i == 0 || d.Duration >= 40*time.Second) && (strings.HasSuffix(cfg.Subject, "1.0.0") || tc.fixedFails)
				tr := hunt.Trial{Draw: d, Find: fail, Dir: fmt.Sprintf("/fake/%s/%v/%d", cfg.Subject, d.Duration, i)}
				if fail {
					tr.Report = model.Report{Verdict: model.Invalid, Results: []model.Result{{Checker: model.CheckAllowance, Verdict: model.Invalid,
						Examples: []model.Example{exampleFor("safety/double-grant/acquire/beyond:no-faults")}}}}
				}
				out = append(out, tr)
			}
			return out, nil
		}
		rep := &Report{Rows: []Row{{Bug: testBug("b1"), Outcome: Found,
			Buggy: Hunted{Release: Release{Name: "lib@1.0.0", Subject: "lib@1.0.0"}, Find: find},
			Fixed: Hunted{Release: Release{Name: "lib@1.0.1", Subject: "lib@1.0.1"}}}}}
		if err := AddContrasts(t.Context(), Config{Contrast: 5, Replay: replay, Registry: fakeRegistry(t)}, rep); err != nil {
			t.Fatal(err)
		}
		c := rep.Rows[0].Contrast
		if c.TellsApart() != tc.wantApart || c.Duration != 40*time.Second || c.BuggyHits != 5 || c.Short == nil || c.Short.Hits != 1 ||
			len(c.Short.Dirs) != 5 || len(c.Dirs) != 10 || strings.Contains(strings.Join(c.Dirs, " "), "/10s/") {
			t.Errorf("%s: %+v (short %+v), want 5/5 for 40s, 1/5 for 10s set aside, told apart %v", tc.name, c, c.Short, tc.wantApart)
		}
		if !strings.Contains(replaysCell(c), "each run for 40s (the buggy release's replays for 10s: 1/5)") {
			t.Errorf("%s: cell %q does not say the replays were made longer", tc.name, replaysCell(c))
		}
		other := testBug("b2")
		other.Signature = model.Signature{Class: model.ClassRefusal, Shape: model.ShapeRefusedFree}
		if !c.recount([2]sought{{bug: other}, {bug: other}}) || c.BuggyHits != 0 || c.Short.Hits != 0 {
			t.Errorf("%s: recounted for another signature: %+v (short %+v), want no hits on either length", tc.name, c, c.Short)
		}
		if !slices.Equal(replayed, tc.wantReplays) {
			t.Errorf("%s: replayed %q, want %q", tc.name, replayed, tc.wantReplays)
		}
	}
}

// A find's draw is made 4 times longer for its replays, at most a minute,
// and not at all once it is that long.
func TestLengthened(t *testing.T) {
	for _, tc := range []struct {
		d, want time.Duration
		ok      bool
	}{{10 * time.Second, 40 * time.Second, true}, {20 * time.Second, time.Minute, true}, {time.Minute, time.Minute, false}, {2 * time.Minute, 2 * time.Minute, false}} {
		got, ok := lengthened(hunt.Draw{Duration: tc.d, Seed: 3})
		if got.Duration != tc.want || ok != tc.ok || got.Seed != 3 {
			t.Errorf("lengthened(%v) = %v, %v; want %v, %v, the same seed", tc.d, got.Duration, ok, tc.want, tc.ok)
		}
	}
}

// Told apart needs most replays: one hit of five is a find, not a
// separation, however clean the fixed release.
func TestTellsApartNeedsMost(t *testing.T) {
	for _, tc := range []struct {
		hits, fixed int
		want        bool
	}{{5, 0, true}, {3, 0, true}, {2, 0, false}, {5, 1, false}, {0, 0, false}} {
		c := &Contrast{Runs: 5, BuggyHits: tc.hits, FixedHits: tc.fixed}
		if got := c.TellsApart(); got != tc.want {
			t.Errorf("%d/5 vs %d/5: told apart %v, want %v", tc.hits, tc.fixed, got, tc.want)
		}
	}
	if (&Contrast{Runs: 5, BuggyHits: 5, Err: "replay on lib: boom"}).TellsApart() {
		t.Error("replays that stopped short tell nothing apart")
	}
}

// A semaphore's find reruns without a plan file (its runs draw their plan
// from the seed), a lock's does not.
func TestReplayDrawOfSemaphores(t *testing.T) {
	d, err := replayDraw(&Finding{Command: "lockcheck run --subject redisson-semaphore@3.16.1 --seed 11 --duration 2s"})
	if err != nil || d.Scenario != nil || d.Seed != 11 || d.Plan.Workload != hunt.PermitsPlan.Workload || d.Plan.Processes != 0 {
		t.Errorf("semaphore: %+v, %v; want a plain draw of seed 11 with no plan", d, err)
	}
	if _, err := replayDraw(&Finding{Command: "lockcheck run --subject redisson@3.16.1 --seed 11 --duration 2s"}); err == nil {
		t.Error("a lock's command without --plan replays; want an error")
	}
}

// A find's command as hunt.Command prints it for a wired hunt replays: its
// --wire (and a --redis) say where the run went, not what it drew.
func TestReplayDrawOfWiredFinds(t *testing.T) {
	cmd := hunt.Command("redisson-semaphore@3.16.1", hunt.Draw{Seed: 7, Duration: 3 * time.Second}, "", "", true)
	d, err := replayDraw(&Finding{Command: strings.Join(cmd, " ")})
	if err != nil || d.Seed != 7 || d.Duration != 3*time.Second {
		t.Errorf("%q: %+v, %v; want seed 7 for 3s", strings.Join(cmd, " "), d, err)
	}
	if _, err := replayDraw(&Finding{Command: "lockcheck run --subject redisson-semaphore@3.16.1 --seed 7 --duration 3s --redis 127.0.0.1:6379"}); err != nil {
		t.Errorf("--redis: %v", err)
	}
}
