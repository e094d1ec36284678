package hunt

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
)

// stormOfFour fails when a plain run has at least 3 processes and storms:
// its minimal failing draw keeps both and drops everything else.
func stormOfFour(d Draw, _ int) bool {
	return d.Scenario == nil && d.Plan.Processes >= 3 && d.Plan.Phases != nil && d.Plan.Phases.Storm != (workloads.Range{})
}

// Shrinking reaches a minimal failing draw: every step it could still
// take passes, and it kept exactly the steps that failed.
func TestShrinkReachesMinimalFailingDraw(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), fails: stormOfFour}
	rec := &recorder{}
	res, err := Run(t.Context(), fakeConfig(t.TempDir(), x, rec))
	if err != nil || res.Find == nil {
		t.Fatalf("Run: %v, %+v", err, res)
	}
	f := res.Find
	if f.First.Draw.Plan.Processes != 8 || !f.Done || !f.Shrunk.Find {
		t.Fatalf("first %s, done %v, shrunk is a find: %v", f.First.Draw.Describe(), f.Done, f.Shrunk.Find)
	}
	want := []string{
		"shorten the duration 10s -> 5s", "shorten the duration 5s -> 2.5s", "shorten the duration 2.5s -> 2s",
		"fewer processes 8 -> 4", "fewer locks 2 -> 1", "try_lock_percent 0", "max_reentry 0",
		"no long holds", "no outages", "no overruns", "overruns first", "no quiet phases", "cancel_percent 0",
	}
	if !slices.Equal(f.Steps, want) {
		t.Errorf("steps\n %q\nwant\n %q", f.Steps, want)
	}
	d := f.Shrunk.Draw
	ph := d.Plan.Phases
	if d.Duration != MinRun || d.Plan.Processes != 4 || len(d.Plan.Locks) != 1 || d.Plan.TryLockPercent != 0 || d.Plan.MaxReentry != 0 ||
		d.Plan.CancelPercent != 0 || !d.Plan.Counter || ph == nil || ph.Storm == (workloads.Range{}) ||
		ph.LongHold != (workloads.Scale{}) || ph.Quiet != (workloads.Range{}) || ph.Overrun != (workloads.Range{}) {
		t.Errorf("shrunk to %+v (phases %+v)", d, ph)
	}
	for _, st := range shrinkSteps {
		if next, ok := st.apply(d); ok && stormOfFour(next, 1) {
			t.Errorf("step %q still fails on the shrunk draw: not minimal", st.name)
		}
	}
	var kept, passed int
	for _, e := range rec.events {
		switch {
		case strings.HasPrefix(e, "shrunk ") && strings.Contains(e, "kept true"):
			kept++
		case strings.HasPrefix(e, "shrunk "):
			passed++
		}
	}
	most := ShrinkTries/2 + 1 // the runs that decide a candidate that always fails or always passes
	if kept != len(want) || passed == 0 || f.ShrinkRuns != most*(kept+passed) {
		t.Errorf("observer heard %d kept and %d passed steps, %d shrink runs", kept, passed, f.ShrinkRuns)
	}
}

// A candidate counts as failing when most of its ShrinkTries runs fail:
// one that fails on its first and third runs is kept after three; one
// that fails on its first run only is not, and the find stays unshrunk.
func TestShrinkKeepsCandidateThatFailsMostly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fails  func(try int) bool
		shrunk bool
	}{
		{"fails on tries 1 and 3", func(try int) bool { return try%3 != 2 }, true},
		{"fails on try 1 only", func(try int) bool { return try%3 == 1 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &fakeExec{clock: newFakeClock(), fails: func(d Draw, try int) bool {
				return d.Duration == 10*time.Second || tc.fails(try) // the find's duration always fails
			}}
			rec := &recorder{}
			res, err := Run(t.Context(), fakeConfig(t.TempDir(), x, rec))
			if err != nil || res.Find == nil {
				t.Fatalf("Run: %v", err)
			}
			if d := res.Find.Shrunk.Draw; (d.Duration == MinRun) != tc.shrunk {
				t.Errorf("shrunk to %s; want the duration shrunk: %v", d.Describe(), tc.shrunk)
			}
			want := fmt.Sprintf("kept %v tries 3", tc.shrunk)
			for _, e := range rec.events {
				if strings.HasPrefix(e, "shrunk shorten the duration") && !strings.HasSuffix(e, want) {
					t.Errorf("event %q: want every duration step to end %q", e, want)
				}
			}
		})
	}
}

// Shrinking keeps the failure it found: a simpler draw that fails only
// with another violation (fewer processes: a refusal, not the double
// grant) is not kept, unless Config.Same says it is the same.
func TestShrinkKeepsTheSameFailure(t *testing.T) {
	shows := func(d Draw) model.Shape {
		if d.Plan.Processes < 8 {
			return model.ShapeRefusedFree
		}
		return model.ShapeDoubleGrant
	}
	for _, tc := range []struct {
		name  string
		same  func(first, cand Trial) bool
		procs int
		shape model.Shape
	}{
		{"SameFailure", nil, 8, model.ShapeDoubleGrant},
		{"any find", func(Trial, Trial) bool { return true }, 2, model.ShapeRefusedFree},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &fakeExec{clock: newFakeClock(), fails: func(Draw, int) bool { return true }, shows: shows}
			cfg := fakeConfig(t.TempDir(), x, &recorder{})
			cfg.Same = tc.same
			res, err := Run(t.Context(), cfg)
			if err != nil || res.Find == nil {
				t.Fatalf("Run: %v", err)
			}
			sh := res.Find.Shrunk
			sigs := sh.Report.Signatures()
			if sh.Draw.Plan.Processes != tc.procs || len(sigs) != 1 || sigs[0].Shape != tc.shape {
				t.Errorf("shrunk to %d processes showing %v, want %d showing %s", sh.Draw.Plan.Processes, sigs, tc.procs, tc.shape)
			}
			if sh.Draw.Duration != MinRun {
				t.Errorf("shrunk to %v: the other steps keep the failure and should be kept", sh.Draw.Duration)
			}
		})
	}
}

// A find Config.Shrinks declines is not shrunk: it is its own
// reproduction, and no shrink run is made.
func TestShrinksDeclined(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), fails: stormOfFour}
	cfg := fakeConfig(t.TempDir(), x, &recorder{})
	var asked int
	cfg.Shrinks = func(first Trial) bool { asked++; return !first.Find }
	res, err := Run(t.Context(), cfg)
	if err != nil || res.Find == nil {
		t.Fatalf("Run: %v", err)
	}
	f := res.Find
	if asked != 1 || f.ShrinkRuns != 0 || len(f.Steps) != 0 || f.Done || f.Shrunk.Draw.Plan.Processes != f.First.Draw.Plan.Processes {
		t.Errorf("asked %d, %d shrink runs, steps %q, done %v, shrunk %s: want the first find as it was", asked, f.ShrinkRuns, f.Steps, f.Done, f.Shrunk.Draw.Describe())
	}
	if len(x.runs) != f.Run {
		t.Errorf("%d runs for a find in run %d: a declined find made shrink runs", len(x.runs), f.Run)
	}
}

// Shrinking never runs past the budget: it stops, not done, with what it
// kept so far.
func TestShrinkStopsOnBudget(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), fails: func(Draw, int) bool { return true }}
	cfg := fakeConfig(t.TempDir(), x, nil)
	cfg.Budget = 38 * time.Second
	res, err := Run(t.Context(), cfg)
	if err != nil || res.Find == nil {
		t.Fatalf("Run: %v", err)
	}
	f := res.Find
	// 10s found it; 5, 2.5, 2, 2 (8 -> 4), 2 (4 -> 2), each run twice,
	// leave 1s: no room for the next 2s candidate.
	if f.Done || len(f.Steps) != 5 || res.Elapsed != 37*time.Second || res.Elapsed > cfg.Budget {
		t.Errorf("done %v, steps %q, elapsed %v (budget %v)", f.Done, f.Steps, res.Elapsed, cfg.Budget)
	}
}

// ctx ending stops shrinking; the find is still returned, and a run cut
// short by ctx is not taken as the candidate's verdict.
func TestShrinkStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	x := &fakeExec{clock: newFakeClock(), fails: func(Draw, int) bool { return true }, before: func(n int) {
		if n == 4 { // the first run of the second candidate
			cancel()
		}
	}}
	res, err := Run(ctx, fakeConfig(t.TempDir(), x, nil))
	if err != nil || res.Find == nil {
		t.Fatalf("Run: %v, %+v", err, res)
	}
	if f := res.Find; f.Done || len(f.Steps) != 1 || len(x.runs) != 4 || f.Shrunk.Draw.Duration != 5*time.Second {
		t.Errorf("done %v, steps %q, %d runs, shrunk to %v", f.Done, f.Steps, len(x.runs), f.Shrunk.Draw.Duration)
	}
}

// A shrink run that cannot be made ends shrinking (the observer hears
// why); the find stands.
func TestShrinkStopsOnRunError(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), fails: func(Draw, int) bool { return true }, errAt: 4}
	rec := &recorder{}
	res, err := Run(t.Context(), fakeConfig(t.TempDir(), x, rec))
	if err != nil || res.Find == nil || res.Find.Done || len(res.Find.Steps) != 1 {
		t.Fatalf("Run: %v, %+v", err, res)
	}
	if last := rec.events[len(rec.events)-1]; !strings.Contains(last, "shrink stopped shorten the duration 5s -> 2.5s: "+errRun.Error()) {
		t.Errorf("last event %q", last)
	}
}

// A step whose draw the executor rejects is not taken, and never run.
func TestShrinkSkipsDrawsCheckRejects(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), fails: func(Draw, int) bool { return true }, check: func(d Draw) error {
		if d.Plan.Processes < 4 {
			return errors.New("too few processes")
		}
		return nil
	}}
	res, err := Run(t.Context(), fakeConfig(t.TempDir(), x, nil))
	if err != nil || res.Find == nil || !res.Find.Done {
		t.Fatalf("Run: %v, %+v", err, res)
	}
	for _, d := range x.runs {
		if d.Plan.Processes < 4 {
			t.Fatalf("ran a draw Check rejects: %s", d.Describe())
		}
	}
	if p := res.Find.Shrunk.Draw.Plan.Processes; p != 4 {
		t.Errorf("shrunk to %d processes, want 4", p)
	}
}

// A scenario's find shrinks only its duration, and its rerun command
// names the scenario and no plan file.
func TestShrinkScenarioFind(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), fails: func(d Draw, _ int) bool { return d.Scenario != nil }}
	cfg := fakeConfig(t.TempDir(), x, nil)
	cfg.Scenarios = fakeScenarios()[1:]
	res, err := Run(t.Context(), cfg)
	if err != nil || res.Find == nil {
		t.Fatalf("Run: %v", err)
	}
	f := res.Find
	if f.Shrunk.Draw.Scenario == nil || f.Shrunk.Draw.Duration != MinRun || f.PlanFile != "" ||
		!strings.Contains(string(f.Plan), `"processes": 4`) {
		t.Errorf("shrunk %s, plan file %q, plan %s", f.Shrunk.Draw.Describe(), f.PlanFile, f.Plan)
	}
	if !strings.HasPrefix(f.CommandLine(), "lockcheck run --scenario fake-b --subject reentrant") || strings.Contains(f.CommandLine(), "--plan") {
		t.Errorf("command %s", f.CommandLine())
	}
}

// ShrinkVerdict decides once most of ShrinkTries runs failed, or once too
// many passed for most to fail, and never before.
func TestShrinkVerdict(t *testing.T) {
	for _, tc := range []struct {
		failed, passed int
		keep, done     bool
	}{
		{0, 0, false, false}, {1, 0, false, false}, {0, 1, false, false}, {1, 1, false, false},
		{2, 0, true, true}, {2, 1, true, true}, {0, 2, false, true}, {1, 2, false, true},
	} {
		if keep, done := ShrinkVerdict(tc.failed, tc.passed); keep != tc.keep || done != tc.done {
			t.Errorf("ShrinkVerdict(%d failed, %d passed) = keep %v, done %v; want %v, %v", tc.failed, tc.passed, keep, done, tc.keep, tc.done)
		}
	}
}
