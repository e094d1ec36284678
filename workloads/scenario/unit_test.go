package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

func TestCatalogIsRunnable(t *testing.T) {
	seen := map[string]bool{}
	var safe, unsafe int
	for _, sc := range Catalog() {
		if sc.Name == "" || sc.Doc == "" || sc.Topology == nil || seen[sc.Name] {
			t.Fatalf("bad or duplicate scenario %+v", sc.Name)
		}
		seen[sc.Name] = true
		if sc.Safe {
			safe++
		} else {
			unsafe++
			if sc.Faults == nil {
				t.Errorf("%s: an unsafe scenario without faults", sc.Name)
			}
		}
		for _, n := range []string{"reentrant", "fair", "fenced", "simple"} {
			subj, err := catalog.Subjects.Lookup(n)
			if err != nil {
				t.Fatal(err)
			}
			if err := sc.Config(Options{Subject: n, Seed: 1}).Validate(); err != nil {
				t.Errorf("%s/%s: %v", sc.Name, n, err)
			}
			exp := sc.Expectation(subj)
			if exp.Skip != "" {
				continue
			}
			if exp.Informational() && strings.HasPrefix(exp.Label, "measured") {
				continue // says what it measures, and why it cannot promise more
			}
			if exp.Informational() {
				t.Errorf("%s/%s: a reference lock without an expectation", sc.Name, n)
			}
			if exp.Detects() == sc.Safe {
				t.Errorf("%s/%s: expectation %q contradicts safe=%v", sc.Name, n, exp.Label, sc.Safe)
			}
		}
	}
	if safe < 6 || unsafe < 3 {
		t.Fatalf("catalog has %d safe and %d unsafe scenarios", safe, unsafe)
	}
	if _, err := Lookup("nope"); !errors.Is(err, ErrUnknownScenario) {
		t.Fatalf("Lookup(nope) = %v", err)
	}
}

func report(v model.Verdict, checkers map[string]model.Verdict) model.Report {
	r := model.Report{Verdict: v}
	for c, cv := range checkers {
		r.Results = append(r.Results, model.Result{Checker: c, Verdict: cv})
	}
	return r
}

func TestExpectMatch(t *testing.T) {
	fencedOK := report(model.Invalid, map[string]model.Verdict{
		model.CheckLinearizable: model.Invalid, model.CheckMutualExclusion: model.Valid, model.CheckFencing: model.Valid,
	})
	if ok, why := ExpectFencesHeld.Match(fencedOK); !ok {
		t.Fatalf("fences held not matched: %s", why)
	}
	broken := report(model.Invalid, map[string]model.Verdict{
		model.CheckLinearizable: model.Invalid, model.CheckMutualExclusion: model.Invalid, model.CheckFencing: model.Valid,
	})
	if ok, why := ExpectFencesHeld.Match(broken); ok || !strings.Contains(why, model.CheckMutualExclusion) {
		t.Fatalf("a broken register matched fences-held (%q)", why)
	}
	if ok, _ := ExpectValid.Match(broken); ok {
		t.Fatal("invalid matched valid")
	}
	if ok, why := ExpectFencesHeld.Match(report(model.Invalid, nil)); ok || !strings.Contains(why, "did not run") {
		t.Fatalf("missing checkers matched (%q)", why)
	}
	if ok, _ := ExpectAny.Match(broken); !ok {
		t.Fatal("ExpectAny rejected a report")
	}
}

func TestHoldersFollowsTheHistory(t *testing.T) {
	h := newHolders(3)
	var buf bytes.Buffer
	line := func(o model.Op) {
		b, _ := json.Marshal(map[string]any{"op": o})
		buf.Write(append(b, '\n'))
	}
	line(model.Op{Process: 1, Kind: model.Acquire, Outcome: model.OK})
	line(model.Op{Process: 2, Kind: model.Acquire, Outcome: model.OK})
	line(model.Op{Process: 2, Kind: model.Release, Outcome: model.OK})
	line(model.Op{Process: 7, Kind: model.Acquire, Outcome: model.OK}) // a replacement: not a worker index
	// written in two pieces, split mid-line
	b := buf.Bytes()
	_, _ = h.Write(b[:len(b)/2])
	_, _ = h.Write(b[len(b)/2:])
	if got := h.Holding(); len(got) != 1 || got[0] != 1 {
		t.Fatalf("Holding = %v, want [1]", got)
	}
	buf.Reset()
	line(model.Op{Process: 1, Kind: model.Release, Outcome: model.Info})
	_, _ = h.Write(buf.Bytes())
	if got := h.Holding(); len(got) != 0 {
		t.Fatalf("Holding after an info release = %v, want none", got)
	}
}

// With the runner's clients, Holders follows a replacement under its
// worker (process 7 now runs worker 2) and forgets a retired process that
// still held (process 0, replaced by 5).
func TestHoldersFollowsReplacements(t *testing.T) {
	h := newHolders(3)
	current := map[int]int{5: 0, 1: 1, 7: 2} // process -> the worker it runs now
	h.follow(resolver{current: current})
	var buf bytes.Buffer
	for _, o := range []model.Op{
		{Process: 0, Kind: model.Acquire, Outcome: model.OK},
		{Process: 7, Kind: model.Acquire, Outcome: model.OK},
	} {
		b, _ := json.Marshal(map[string]any{"op": o})
		buf.Write(append(b, '\n'))
	}
	_, _ = h.Write(buf.Bytes())
	if got := h.Holding(); !slices.Equal(got, []int{2}) {
		t.Fatalf("Holding = %v, want [2] (process 7 on worker 2; process 0 retired)", got)
	}
	newHolders(3).follow(targetsOnly{"w0"}) // clients that resolve nothing: left as is
}

// resolver is a faults.Clients whose WorkerOf reads a map.
type resolver struct {
	targetsOnly
	current map[int]int
}

func (r resolver) WorkerOf(p int) (int, bool) { w, ok := r.current[p]; return w, ok }

func TestMatrixVerdict(t *testing.T) {
	sc, _ := Lookup("client-stall")
	safe, _ := Lookup("no-faults")
	ref, _ := catalog.Subjects.Lookup("reentrant")
	outs := []Outcome{
		{Cell: Cell{Scenario: safe, Subject: ref, Seed: 1}, Expect: ExpectValid, Report: report(model.Valid, nil), OK: true},
		{Cell: Cell{Scenario: sc, Subject: ref, Seed: 1}, Expect: ExpectDetected, Report: report(model.Invalid, map[string]model.Verdict{model.CheckLinearizable: model.Invalid}), OK: true},
		{Cell: Cell{Scenario: sc, Subject: ref, Seed: 2}, Expect: ExpectDetected, Report: report(model.Valid, nil), Why: "verdict valid, want invalid"},
	}
	if err := Verdict(outs); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("Verdict = %v, want ErrUnexpected", err)
	}
	outs[2].Err = errors.New("no redis")
	if err := Verdict(outs); !errors.Is(err, ErrInfrastructure) {
		t.Fatalf("Verdict = %v, want ErrInfrastructure", err)
	}
	if err := Verdict(outs[:2]); err != nil {
		t.Fatalf("Verdict = %v, want nil", err)
	}
}

// A scenario that mixes faults names the catalog scenarios whose faults it
// draws from, each a safe one that fits the same subjects' skip rule, and
// its nemesis has one fault per scenario it mixes.
func TestMixesNameTheirScenarios(t *testing.T) {
	mixes := 0
	for _, sc := range Catalog() {
		if len(sc.Mixes) == 0 {
			continue
		}
		mixes++
		for _, name := range sc.Mixes {
			m, err := Lookup(name)
			switch {
			case err != nil:
				t.Errorf("%s mixes %q: %v", sc.Name, name, err)
			case len(m.Mixes) > 0:
				t.Errorf("%s mixes %s, itself a mix", sc.Name, name)
			case !m.Safe && !m.Pauses && sc.Safe:
				// A pause past the lease is judged by the paused process's
				// allowance (process-pause is safe so); nothing else unsafe.
				t.Errorf("%s is safe but mixes the unsafe %s, which pauses nothing", sc.Name, name)
			}
		}
	}
	if mixes == 0 {
		t.Fatal("no scenario mixes faults; wire-mix should")
	}
	nemeses := map[string]func(World) []faults.Fault{"wire-mix": wireMixFaults, "pause-mix": pauseMixFaults}
	w := World{
		Env:  &Env{Wires: make([]*faults.Wire, 3), Links: make([]faults.Link, 3)},
		Rand: rand.New(rand.NewPCG(1, 2)), Holders: &Holders{}, Clients: targetsOnly{"w0", "w1", "w2"},
	}
	for _, sc := range Catalog() {
		if len(sc.Mixes) == 0 {
			continue
		}
		nemesis, ok := nemeses[sc.Name]
		if !ok {
			t.Errorf("%s: no nemesis named for it in this test", sc.Name)
			continue
		}
		if got, want := len(nemesis(w)), len(sc.Mixes); got != want {
			t.Errorf("%s's nemesis has %d faults, want one for each of its %d mixed scenarios", sc.Name, got, want)
		}
	}
}

// targetsOnly is a faults.Clients that names its targets and acts on none.
type targetsOnly []string

func (c targetsOnly) Targets() []string                   { return c }
func (targetsOnly) Stall(context.Context, string) error   { return errors.ErrUnsupported }
func (targetsOnly) Unstall(context.Context, string) error { return errors.ErrUnsupported }
func (targetsOnly) Crash(context.Context, string) error   { return errors.ErrUnsupported }

// A cell whose run could not be made is run once more with the same seed:
// a second attempt that runs is the cell's verdict (the first error kept in
// Retried); two failures are an infrastructure error.
func TestMatrixRetriesAnInfrastructureError(t *testing.T) {
	safe, _ := Lookup("no-faults")
	ref, _ := catalog.Subjects.Lookup("reentrant")
	for _, c := range []struct {
		name  string
		fails int
		calls int
		infra bool
	}{
		{"runs at once", 0, 1, false},
		{"fails once", 1, 2, false},
		{"fails twice", 2, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			run := func(ctx context.Context, cell Cell) (model.Report, string, error) {
				calls++
				if calls <= c.fails {
					return model.Report{}, "", errors.New("driver refused hello")
				}
				return report(model.Valid, nil), "dir", nil
			}
			outs := Matrix(t.Context(), []Scenario{safe}, []subject.Subject{ref}, []int64{7}, run, nil)
			o := outs[0]
			if calls != c.calls || (o.Err != nil) != c.infra || (o.Retried != nil) != (c.fails > 0) || (!c.infra && !o.OK) {
				t.Fatalf("%d calls, outcome %+v: want %d calls, infrastructure %v", calls, o, c.calls, c.infra)
			}
			if err := Verdict(outs); errors.Is(err, ErrInfrastructure) != c.infra {
				t.Fatalf("Verdict = %v", err)
			}
		})
	}
}
