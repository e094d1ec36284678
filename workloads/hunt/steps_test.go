package hunt

import (
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// A hunt's draws are a function of its seed; a subject meets only the
// scenarios where a hunt can find something, and a mutant the same as the
// correct lock it claims to be; each scenario is drawn once before any is
// drawn again.
func TestHuntDrawsAreReproducible(t *testing.T) {
	reentrant, _ := catalog.Subjects.Lookup("reentrant")
	scs := Scenarios(reentrant)
	if len(scs) == 0 {
		t.Fatal("reentrant must pass some scenario")
	}
	for _, sc := range scs {
		if !sc.Require(reentrant).Hunted() {
			t.Errorf("scenario %s finds nothing for reentrant, yet is drawn", sc.Name)
		}
	}
	mutant, _ := catalog.Subjects.Lookup("mutant-check-then-set")
	claimed := map[string]bool{}
	for _, sc := range scs {
		claimed[sc.Name] = true
	}
	for _, sc := range Scenarios(mutant) {
		if !claimed[sc.Name] {
			t.Errorf("a mutant is hunted on %s, where the lock it claims to be is not", sc.Name)
		}
	}
	a, b := newDrawer(42, scs), newDrawer(42, scs)
	picked, singles, seen := 0, 0, map[string]int{}
	mixes := 0
	for _, sc := range scs {
		if len(sc.Mixes) > 0 {
			mixes++
		}
	}
	if mixes == 0 {
		t.Fatal("no scenario of the catalog mixes faults: wire-mix should")
	}
	for i := range 200 {
		sa, ca := a.draw()
		sb, cb := b.draw()
		if sa != sb || (ca == nil) != (cb == nil) || (ca != nil && ca.Name != cb.Name) || sa != 42+int64(i) {
			t.Fatalf("draw %d differs: seed %d/%d", i, sa, sb)
		}
		if ca == nil {
			continue
		}
		// A mix (wire-mix, pause-mix) is every other scenario
		// draw from the first; the others in between, each once before
		// any again.
		if mixed := len(ca.Mixes) > 0; mixed != (picked%2 == 0) {
			t.Fatalf("scenario draw %d is %s (mixes %v); want a mix every other draw from the first", picked, ca.Name, ca.Mixes)
		}
		if len(ca.Mixes) == 0 {
			if singles < len(scs)-mixes && seen[ca.Name] > 0 {
				t.Fatalf("draw %d: %s again before every scenario was drawn", i, ca.Name)
			}
			singles++
		}
		picked++
		seen[ca.Name]++
	}
	if picked < 70 || picked > 130 {
		t.Errorf("%d scenario draws in 200, want about 100", picked)
	}
}

// Every shrink step terminates, keeps the plan valid and the counter on,
// and leaves a scenario's plan alone.
func TestHuntShrinkStepsKeepCounter(t *testing.T) {
	d := Draw{Seed: 3, Duration: 10e9, Plan: Plan(3)}
	if d.Plan.Phases == nil || d.Plan.CancelPercent == 0 {
		t.Fatalf("the hunt plan for seed 3 has no phases or cancels: %+v", d.Plan)
	}
	phases := *d.Plan.Phases
	for _, st := range shrinkSteps {
		if st.name != "no storms" {
			continue
		}
		if next, ok := st.apply(d); !ok || *d.Plan.Phases != phases || next.Plan.Phases.Storm != (workloads.Range{}) {
			t.Fatalf("%s: applied %v, changed the original's phases: %v", st.name, ok, *d.Plan.Phases != phases)
		}
	}
	for _, st := range shrinkSteps {
		for n := 0; ; n++ {
			next, ok := st.apply(d)
			if !ok {
				break
			}
			if n > 10 {
				t.Fatalf("%s does not terminate", st.name)
			}
			if !next.Plan.Counter || next.Plan.Validate() != nil || next.Duration < MinRun {
				t.Fatalf("%s: %+v (valid: %v)", st.name, next, next.Plan.Validate())
			}
			d = next
		}
	}
	if d.Duration != MinRun || d.Plan.Processes != 2 || d.Plan.TryLockPercent != 0 || d.Plan.MaxReentry != 0 ||
		d.Plan.Phases != nil || d.Plan.CancelPercent != 0 {
		t.Errorf("fully shrunk: %+v", d)
	}
	sc := Scenarios(subject.Subject{Name: "reentrant", Kind: subject.KindReference})[0]
	for _, st := range shrinkSteps[1:] {
		if _, ok := st.apply(Draw{Scenario: &sc, Duration: sc.Duration}); ok {
			t.Errorf("%s edits a scenario's plan", st.name)
		}
	}
}

func TestShellJoin(t *testing.T) {
	got := ShellJoin([]string{"lockcheck", "run", "--plan", "/tmp/a b/plan.json", "it's", ""})
	want := `lockcheck run --plan '/tmp/a b/plan.json' 'it'\''s' ''`
	if got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}

// The reproducing command names what the hunt ran: the plan file for a
// plain run, the scenario (and no plan) for a scenario.
func TestHuntReproduceCommand(t *testing.T) {
	got := ShellJoin(Command("reentrant+fair", Draw{Seed: 9, Duration: 2500e6, Plan: Plan(9)}, "/r/plan.json", "10.0.0.5:6379", false))
	if want := "lockcheck run --subject reentrant+fair --seed 9 --duration 2.5s --plan /r/plan.json --redis 10.0.0.5:6379"; got != want {
		t.Errorf("plain:\n got %s\nwant %s", got, want)
	}
	sc := Scenarios(subject.Subject{Name: "reentrant", Kind: subject.KindReference})[0]
	got = ShellJoin(Command("reentrant+fair", Draw{Seed: 4, Scenario: &sc, Duration: 2e9}, "", "", true))
	if want := "lockcheck run --scenario " + sc.Name + " --subject reentrant+fair --seed 4 --duration 2s"; got != want {
		t.Errorf("scenario:\n got %s\nwant %s", got, want)
	}
	got = ShellJoin(Command("reentrant", Draw{Seed: 9, Duration: 2e9, Plan: Plan(9)}, "/r/plan.json", "", true))
	if want := "lockcheck run --subject reentrant --seed 9 --duration 2s --plan /r/plan.json --wire"; got != want {
		t.Errorf("plain, wired:\n got %s\nwant %s", got, want)
	}
}

// The shrink log names what a step did: 2.5s -> 2s is not a halving.
func TestShrinkStepLabelSaysWhatItDid(t *testing.T) {
	from := Draw{Duration: 2500 * time.Millisecond}
	to, ok := shrinkSteps[0].apply(from)
	if !ok || to.Duration != 2*time.Second {
		t.Fatalf("the duration step made %v (%v)", to.Duration, ok)
	}
	if l := shrinkSteps[0].label(from, to); strings.Contains(l, "halve") || !strings.Contains(l, "2.5s -> 2s") {
		t.Errorf("label %q", l)
	}
}
