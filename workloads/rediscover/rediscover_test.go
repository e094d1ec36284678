package rediscover

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

const (
	testBudget = time.Minute
	testRun    = 5 * time.Second
)

// rediscover runs bugs against hunts that find what finds says, and
// returns the report, the hunts' configs and what the observer heard.
func rediscover(t *testing.T, bugs []Bug, finds func(string, int64) *fakeFind, standIns map[string]string, names ...string) (*Report, *fakeHunts, *recorder) {
	t.Helper()
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	f := &fakeHunts{clock: clock, finds: finds}
	obs := &recorder{}
	rep, err := Run(context.Background(), Config{
		Bugs: bugs, Budget: testBudget, RunDuration: testRun, Seed: 7, Out: t.TempDir(),
		Registry: fakeRegistry(t, names...), StandIns: standIns, Hunt: f.hunt, Observer: obs, now: clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(obs.judged) != len(bugs) {
		t.Fatalf("Judged heard %d times, want %d", len(obs.judged), len(bugs))
	}
	return rep, f, obs
}

// only makes finds for one subject, by first seed.
func only(subject string, find func(seed int64) *fakeFind) func(string, int64) *fakeFind {
	return func(s string, seed int64) *fakeFind {
		if s != subject {
			return nil
		}
		return find(seed)
	}
}

func TestFoundAndFixedClean(t *testing.T) {
	finds := only("lib@1.0.0", func(int64) *fakeFind {
		return &fakeFind{run: 3, scenario: true, allowance: model.Invalid, steps: []string{"shorten"}}
	})
	rep, f, obs := rediscover(t, []Bug{testBug("b1")}, finds, nil, "lib@1.0.0", "lib@1.0.1")
	r := rep.Rows[0]
	if r.Outcome != Found || r.Buggy.Find == nil {
		t.Fatalf("outcome %s (%s), want found", r.Outcome, r.Why)
	}
	if got := r.Buggy.Find; got.Detection != 3*testRun || got.Run != 3 || got.Class != Beyond || got.Seed != 9 || !got.Reproduced {
		t.Errorf("find %+v: want run 3 (seed 9) at %v, beyond the fault", got, 3*testRun)
	}
	if !strings.Contains(r.Buggy.Find.Command, "--subject lib@1.0.0 --seed 9") {
		t.Errorf("command %q does not rerun the find", r.Buggy.Find.Command)
	}
	if r.FixedOutcome != Clean || r.Fixed.Runs != int(testBudget/testRun) {
		t.Errorf("fixed %s after %d runs, want clean after %d", r.FixedOutcome, r.Fixed.Runs, testBudget/testRun)
	}
	if len(f.calls) != 2 || f.calls[0].Seed != f.calls[1].Seed || f.calls[0].Budget != f.calls[1].Budget {
		t.Fatalf("hunts %+v: want the buggy and the fixed release hunted with the same seed and budget", f.calls)
	}
	for _, c := range f.calls {
		if c.Scenarios != nil || c.Judge != nil || c.Executor != nil {
			t.Errorf("hunt of %s given scenarios, a judge or an executor: want hunt's defaults (no hint)", c.Subject)
		}
	}
	if want := []string{"b1 buggy lib@1.0.0", "b1 fixed lib@1.0.1"}; strings.Join(obs.hunting, ";") != strings.Join(want, ";") {
		t.Errorf("Hunting heard %q, want %q", obs.hunting, want)
	}
	if obs.ran != 3+int(testBudget/testRun) {
		t.Errorf("the observer heard %d runs, want every run of both hunts", obs.ran)
	}
	if tot := rep.Totals; tot.FoundSig != 1 || tot.FixedClean != 1 || tot.MedianDetection != 3*testRun {
		t.Errorf("totals %+v", tot)
	}
}

func TestNotFound(t *testing.T) {
	missing := testBug("b2")
	missing.Missing = "no interrupts"
	rep, _, _ := rediscover(t, []Bug{testBug("b1"), missing}, func(string, int64) *fakeFind { return nil }, nil, "lib@1.0.0", "lib@1.0.1")
	for i, want := range []string{"not found within the budget (12 runs)", "trigger missing: no interrupts"} {
		r := rep.Rows[i]
		if r.Outcome != NotFound || r.Why != want || r.FixedOutcome != Clean {
			t.Errorf("%s: %s (%s), fixed %s; want not found (%s), fixed clean", r.Bug.ID, r.Outcome, r.Why, r.FixedOutcome, want)
		}
	}
	if tot := rep.Totals; tot.NotFound != 1 || tot.NotProducible != 1 || tot.FoundSig != 0 || tot.MedianDetection != 0 {
		t.Errorf("totals %+v", tot)
	}
}

// TestMissingTriggerFlagged: a buggy release flagged for a bug whose
// trigger lockcheck cannot produce is not counted as a rediscovery of it.
func TestMissingTriggerFlagged(t *testing.T) {
	missing := testBug("b2")
	missing.Missing = "no interrupts"
	finds := only("lib@1.0.0", func(int64) *fakeFind { return &fakeFind{run: 2} })
	rep, _, _ := rediscover(t, []Bug{testBug("b1"), missing}, finds, nil, "lib@1.0.0", "lib@1.0.1")
	if r := rep.Rows[0]; r.Outcome != Found {
		t.Errorf("b1 (producible): %s, want found", r.Outcome)
	}
	r := rep.Rows[1]
	if r.Outcome != NotFound || !strings.HasPrefix(r.Why, "trigger missing: no interrupts; the release was flagged in run 2") {
		t.Errorf("b2 (trigger missing): %s (%s), want not found, the flag not counted", r.Outcome, r.Why)
	}
	if tot := rep.Totals; tot.FoundSig != 1 || tot.NotProducible != 1 || tot.MedianDetection != 2*testRun {
		t.Errorf("totals %+v: want only b1's find counted", tot)
	}
}

func TestFixedNotClean(t *testing.T) {
	finds := func(s string, seed int64) *fakeFind { return &fakeFind{run: 2} } // a plain run: no fault
	rep, _, _ := rediscover(t, []Bug{testBug("b1")}, finds, nil, "lib@1.0.0", "lib@1.0.1")
	r := rep.Rows[0]
	if r.Outcome != Found || r.Buggy.Find.Class != NoFault {
		t.Errorf("buggy %s: want found with no fault", r.Outcome)
	}
	if r.FixedOutcome != Flagged || rep.Totals.FixedFlagged != 1 {
		t.Errorf("fixed %s, %d flagged: want the fixed release flagged", r.FixedOutcome, rep.Totals.FixedFlagged)
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "**FLAGGED** in run 2 with the bug's signature") || !strings.Contains(md.String(), "1 flagged with it") {
		t.Errorf("markdown does not show the false flag:\n%s", md.String())
	}
}

// TestAllowedOnly: finds allowed by the fault do not count, in the buggy
// release or the fixed one; the release is hunted on from the seed after
// the hunt's last, within the same budget.
func TestAllowedOnly(t *testing.T) {
	allowed := func(string, int64) *fakeFind { return &fakeFind{run: 2, scenario: true, allowance: model.Valid} }
	rep, f, _ := rediscover(t, []Bug{testBug("b1")}, allowed, nil, "lib@1.0.0", "lib@1.0.1")
	r := rep.Rows[0]
	if r.Outcome != NotFound || len(r.Buggy.Allowed) == 0 || r.Buggy.Allowed[0].Class != Allowed {
		t.Fatalf("buggy %s (%s), %d allowed: want not found, with its allowed finds kept", r.Outcome, r.Why, len(r.Buggy.Allowed))
	}
	if !strings.Contains(r.Why, "allowed by the fault, not counted") {
		t.Errorf("why %q does not say the finds were allowed", r.Why)
	}
	if r.FixedOutcome != Clean {
		t.Errorf("fixed %s: an allowed find is no flag", r.FixedOutcome)
	}
	if len(f.calls) < 4 || f.calls[1].Seed != f.calls[0].Seed || f.calls[1].Drawn != f.calls[0].Drawn+2 || f.calls[1].Budget >= f.calls[0].Budget {
		t.Errorf("hunts %v: want the release hunted on from the seed after the last, on what is left of the budget", seeds(f))
	}
	unclassed := func(string, int64) *fakeFind { return &fakeFind{run: 1, scenario: true} }
	rep, _, _ = rediscover(t, []Bug{testBug("b1")}, unclassed, nil, "lib@1.0.0", "lib@1.0.1")
	if r := rep.Rows[0]; r.Outcome != NotFound || r.Buggy.Allowed[0].Class != Unclassed {
		t.Errorf("a find the fault-allowance checker did not judge: %s, want not found (unclassed)", r.Outcome)
	}
}

// TestAllowedThenBeyond: a find that counts after allowed ones is found,
// numbered and timed over the release's whole budget.
func TestAllowedThenBeyond(t *testing.T) {
	finds := only("lib@1.0.0", func(seed int64) *fakeFind {
		if seed == 7 {
			return &fakeFind{run: 2, scenario: true, allowance: model.Valid}
		}
		return &fakeFind{run: 1, scenario: true, allowance: model.Invalid}
	})
	rep, _, _ := rediscover(t, []Bug{testBug("b1")}, finds, nil, "lib@1.0.0", "lib@1.0.1")
	r := rep.Rows[0]
	if r.Outcome != Found || r.Buggy.Find.Run != 3 || r.Buggy.Find.Seed != 9 || len(r.Buggy.Allowed) != 1 {
		t.Fatalf("buggy %s, find %+v: want found in run 3 (seed 9) after one allowed find", r.Outcome, r.Buggy.Find)
	}
	if want := 3*testRun + fakeShrink; r.Buggy.Find.Detection != want {
		t.Errorf("detection %v, want %v (the first hunt's runs and shrinking, then one run)", r.Buggy.Find.Detection, want)
	}
}

func TestNotRunAndStandIns(t *testing.T) {
	finds := only("old-lib", func(int64) *fakeFind { return &fakeFind{run: 1} })
	standIns := map[string]string{"lib@1.0.0": "old-lib"}
	rep, f, _ := rediscover(t, []Bug{testBug("b1")}, finds, standIns, "old-lib")
	r := rep.Rows[0]
	if r.Outcome != Found || !r.Buggy.StandIn || r.Buggy.Subject != "old-lib" || r.Buggy.Name != "lib@1.0.0" {
		t.Errorf("buggy %+v: want found in the stand-in old-lib", r.Buggy.Release)
	}
	if r.FixedOutcome != FixedNotRun || !strings.Contains(r.Fixed.NotRun, "no subject lib@1.0.1") {
		t.Errorf("fixed %s (%s): want not run, no such subject", r.FixedOutcome, r.Fixed.NotRun)
	}
	if len(f.calls) != 1 {
		t.Errorf("%d hunts: a release not in the registry is not hunted", len(f.calls))
	}
	rep, _, _ = rediscover(t, []Bug{testBug("b1")}, finds, nil)
	if r := rep.Rows[0]; r.Outcome != NotRun || rep.Totals.NotRun != 1 || rep.Totals.FixedUnjudged != 1 {
		t.Errorf("%s, totals %+v: want not run", r.Outcome, rep.Totals)
	}
}

func TestHuntError(t *testing.T) {
	clock := &fakeClock{now: time.Now()}
	boom := errors.New("no redis-server")
	rep, err := Run(context.Background(), Config{
		Bugs: []Bug{testBug("b1")}, Budget: testBudget, RunDuration: testRun, Seed: 1,
		Registry: fakeRegistry(t, "lib@1.0.0", "lib@1.0.1"), now: clock.Now,
		Hunt: func(context.Context, hunt.Config) (*hunt.Result, error) { return nil, boom },
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Outcome != Failed || r.FixedOutcome != FixedFailed || r.Why != boom.Error() {
		t.Errorf("%s (%s), fixed %s: want both errors", r.Outcome, r.Why, r.FixedOutcome)
	}
}

func TestConfigErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no bugs":      {},
		"run > budget": {Bugs: []Bug{testBug("b1")}, Budget: time.Second, RunDuration: 5 * time.Second},
		"short run":    {Bugs: []Bug{testBug("b1")}, RunDuration: time.Second},
	} {
		if _, err := Run(context.Background(), cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: err %v, want ErrConfig", name, err)
		}
	}
}

// seeds are the seeds of the hunts' first draws, in order.
func seeds(f *fakeHunts) []int64 {
	var out []int64
	for _, c := range f.calls {
		out = append(out, c.Seed+int64(c.Drawn))
	}
	return out
}

// TestFixedFlaggedKnown: a flag on a fixed release is absorbed only by
// the signature of a bug its known_in_fixed names: the hunt goes on past
// it and the release is clean of the bug; a flag with another signature
// is a flag for something else.
func TestFixedFlaggedKnown(t *testing.T) {
	b0, b := testBug("b0"), testBug("b1")
	b0.Property, b0.Signature = model.ClassRefusal, sig(t, "refusal/refused-free/acquire/*")
	b0.Buggy, b0.Fixed = "1.0.1", "1.0.2"
	b.KnownInFixed = []string{"b0"}
	for _, tc := range []struct {
		sig  string
		want FixedOutcome
	}{
		{"refusal/refused-free/acquire/none", Clean},
		{"contract/unlock-after-lapse/release/none", FlaggedOther},
	} {
		finds := only("lib@1.0.1", func(int64) *fakeFind { return &fakeFind{run: 1, sig: tc.sig} })
		rep, f, _ := rediscover(t, []Bug{b}, finds, nil, "lib@1.0.0", "lib@1.0.1")
		f.calls = nil
		rep.Rejudge([]Bug{b0, b}) // the catalog that names b0
		r := rep.Rows[0]
		if r.FixedOutcome != tc.want || rep.Totals.FixedFlagged != 0 {
			t.Errorf("fixed release flagged with %s: %s, totals %+v; want %s", tc.sig, r.FixedOutcome, rep.Totals, tc.want)
		}
		if tc.want == Clean && (len(r.Fixed.Others) == 0 || r.Fixed.Others[0].Known != "b0") {
			t.Errorf("the absorbed flag: %+v, want it listed as b0's", r.Fixed.Others)
		}
	}
}

// TestJudgeCountsOnlyTheSignature: a find of the buggy release without
// the bug's signature is no rediscovery of it but an "other find"; one of
// another catalogued bug of the release lets the hunt go on, and the
// bug's own find after it counts, with every signature met listed.
func TestJudgeCountsOnlyTheSignature(t *testing.T) {
	b0, b := testBug("b0"), testBug("b1")
	b0.Property, b0.Signature = model.ClassContract, sig(t, "contract/unlock-after-lapse/release/*")
	b0.Fixed = "1.0.2"
	other := only("lib@1.0.0", func(int64) *fakeFind { return &fakeFind{run: 2, sig: "refusal/refused-free/acquire/none"} })
	rep, _, _ := rediscover(t, []Bug{b}, other, nil, "lib@1.0.0", "lib@1.0.1")
	if r := rep.Rows[0]; r.Outcome != OtherFind || r.Buggy.Find != nil || r.Status() != StatusOther || rep.Totals.OtherFind != 1 {
		t.Errorf("a refusal for a safety bug: %s (%s), status %s: want flagged for something else", r.Outcome, r.Why, r.Status())
	}
	pastKnown := only("lib@1.0.0", func(seed int64) *fakeFind {
		if seed == 7 {
			return &fakeFind{run: 2, sig: "contract/unlock-after-lapse/release/none"}
		}
		return &fakeFind{run: 1}
	})
	clock := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	f := &fakeHunts{clock: clock, finds: pastKnown}
	rep, err := Run(t.Context(), Config{Bugs: []Bug{b}, Catalog: []Bug{b0, b}, Budget: testBudget, RunDuration: testRun, Seed: 7,
		Out: t.TempDir(), Registry: fakeRegistry(t, "lib@1.0.0", "lib@1.0.1"), Hunt: f.hunt, now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Rows[0]
	if r.Outcome != Found || r.Buggy.Find.Run != 3 || len(r.Buggy.Others) != 1 || r.Buggy.Others[0].Known != "b0" {
		t.Fatalf("buggy %s, find %+v, others %+v: want found in run 3, past b0's find in run 2", r.Outcome, r.Buggy.Find, r.Buggy.Others)
	}
	met := r.Buggy.Met()
	if len(met) != 2 || met[0].Run != 2 || met[0].Known != "b0" || met[1].Run != 3 || met[1].Signature.String() != defaultSig {
		t.Errorf("signatures met: %+v, want b0's in run 2, then the bug's in run 3", met)
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"run 2: `contract/unlock-after-lapse/release/none` (b0)", "`" + defaultSig + "` run 3", "(the bug's)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the page lacks %q:\n%s", want, md.String())
		}
	}
}

// TestHuntGoesOnPastUnknownFinds: a find that no catalogued bug explains
// is recorded as an other find, unshrunk, and the hunt goes on: the bug's own find after it counts on
// the buggy release, and a fixed release that showed only such a find is
// flagged for something else, named by that find.
func TestHuntGoesOnPastUnknownFinds(t *testing.T) {
	b := testBug("b1")
	unknown := "refusal/refused-free/acquire/none"
	finds := func(subject string, seed int64) *fakeFind {
		switch {
		case seed == 7:
			return &fakeFind{run: 2, sig: unknown}
		case subject == "lib@1.0.0":
			return &fakeFind{run: 1}
		}
		return nil
	}
	rep, f, _ := rediscover(t, []Bug{b}, finds, nil, "lib@1.0.0", "lib@1.0.1")
	r := rep.Rows[0]
	if r.Outcome != Found || r.Buggy.Find == nil || r.Buggy.Find.Run != 3 || len(r.Buggy.Others) != 1 || r.Buggy.Others[0].Known != "" {
		t.Fatalf("buggy %s, find %+v, others %+v: want found in run 3, past the unknown find of run 2", r.Outcome, r.Buggy.Find, r.Buggy.Others)
	}
	if r.FixedOutcome != FlaggedOther || r.Fixed.Runs <= 2 || !strings.Contains(fixedCell(r), "flagged in run 2 for something else: `"+unknown+"`") {
		t.Errorf("fixed %s after %d runs (%s): want flagged for something else by run 2's find, hunted on past it", r.FixedOutcome, r.Fixed.Runs, fixedCell(r))
	}
	found := (&fakeFind{run: 1, sig: unknown}).trial(hunt.Trial{})
	for _, c := range f.calls {
		if c.Shrinks(found) {
			t.Errorf("a hunt of %s shrinks an unknown find: its budget goes to the bug", c.Subject)
		}
	}
}

// TestInterrupted: a rediscovery whose ctx ends returns the rows done,
// counted, and ctx's error; a release cut short is not called clean.
func TestInterrupted(t *testing.T) {
	clock := &fakeClock{now: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeHunts{clock: clock, finds: func(string, int64) *fakeFind { return nil }}
	hunts := func(ctx context.Context, cfg hunt.Config) (*hunt.Result, error) {
		res, err := f.hunt(ctx, cfg)
		cancel() // the first hunt's end: SIGINT
		res.Interrupted = true
		return res, err
	}
	rep, err := Run(ctx, Config{
		Bugs: []Bug{testBug("b1"), testBug("b2")}, Budget: testBudget, RunDuration: testRun, Seed: 1,
		Registry: fakeRegistry(t, "lib@1.0.0", "lib@1.0.1"), Hunt: hunts, now: clock.Now,
	})
	if !errors.Is(err, context.Canceled) || rep == nil || len(rep.Rows) != 1 || rep.Totals.Bugs != 1 {
		t.Fatalf("err %v, report %+v: want the first row, counted, and context.Canceled", err, rep)
	}
	if r := rep.Rows[0]; r.Outcome != NotFound || !strings.HasPrefix(r.Why, "interrupted") || r.FixedOutcome != FixedInterrupted {
		t.Errorf("%s (%s), fixed %s: want interrupted on both sides", r.Outcome, r.Why, r.FixedOutcome)
	}
}

// TestMetNamesTheKnownBugOfASharedSignature: a signature the bug's pattern
// matches, met in a find counted as another catalogued bug's (a fixed
// release's flag that bug absorbs), says both, so the list does not read
// as the bug's own find.
func TestMetNamesTheKnownBugOfASharedSignature(t *testing.T) {
	b := testBug("b1")
	b.Signature = sig(t, "liveness/orphan-renewed/acquire/*")
	s := sig(t, "liveness/orphan-renewed/acquire+release/beyond:refuse-once")
	r := Row{Bug: b, Fixed: Hunted{Release: Release{Name: "lib@1.0.1"},
		Others: []Finding{{Run: 4, Class: Beyond, Signatures: []model.Signature{s}, Known: "k"}}}}
	var md strings.Builder
	writeMet(&md, []Row{r})
	if want := "(the bug's, in a find counted as k's)"; !strings.Contains(md.String(), want) {
		t.Errorf("the list lacks %q:\n%s", want, md.String())
	}
}
