package hunt

import (
	"strings"
	"testing"
	"time"
)

// TestReplay: a draw is run as given, n times, each judged and kept in a
// directory of its own; a run that cannot be made stops the replay with
// the trials made before it.
func TestReplay(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), fails: func(_ Draw, try int) bool { return try != 2 }}
	cfg := fakeConfig(t.TempDir(), x, nil)
	d := Draw{Seed: 42, Duration: 3 * time.Second, Plan: Plan(42)}
	trials, err := Replay(t.Context(), cfg, d, 3)
	if err != nil || len(trials) != 3 {
		t.Fatalf("Replay: %d trials, %v; want 3", len(trials), err)
	}
	dirs := map[string]bool{}
	for i, tr := range trials {
		if want := i != 1; tr.Find != want {
			t.Errorf("replay %d: find %v, want %v", i+1, tr.Find, want)
		}
		if tr.Draw.Seed != 42 || tr.Draw.Duration != d.Duration || !strings.Contains(tr.Dir, "replay") {
			t.Errorf("replay %d ran %s into %s: want seed 42 for 3s under runs/replay", i+1, tr.Draw.Describe(), tr.Dir)
		}
		dirs[tr.Dir] = true
	}
	if len(dirs) != 3 || len(x.runs) != 3 {
		t.Errorf("%d directories for %d runs, want 3 of each", len(dirs), len(x.runs))
	}

	x = &fakeExec{clock: newFakeClock(), errAt: 2}
	trials, err = Replay(t.Context(), fakeConfig(t.TempDir(), x, nil), d, 3)
	if err == nil || len(trials) != 1 {
		t.Errorf("Replay with the second run failing: %d trials, %v; want 1 and the error", len(trials), err)
	}
}
