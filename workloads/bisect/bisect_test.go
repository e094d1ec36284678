package bisect

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"slices"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// TestBisectEveryBoundary puts the bug's first release at every place of
// 2..40 releases and checks that the bisection names it and its last clean
// neighbour, in at most 2 + ⌈log₂(n−1)⌉ visits (the two ends, then one
// halving each).
func TestBisectEveryBoundary(t *testing.T) {
	for n := 2; n <= 40; n++ {
		rels := releases(n)
		bound := 2 + bits.Len(uint(n-2)) // ⌈log₂(n−1)⌉ = bits.Len(n−2) for n ≥ 2
		for k := 1; k < n; k++ {
			f := &fakeReplayer{first: rels[k]}
			res, err := Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind})
			if err != nil {
				t.Fatal(err)
			}
			if res.FirstHas != rels[k] || res.LastClean != rels[k-1] || len(res.Untested) > 0 {
				t.Fatalf("n=%d, bug from %s: got first %q, last clean %q, untested %v (%s)", n, rels[k], res.FirstHas, res.LastClean, res.Untested, res.Why)
			}
			if res.Visits > bound || len(f.calls) != res.Visits {
				t.Fatalf("n=%d, bug from %s: %d visits (%d replay calls), want at most %d", n, rels[k], res.Visits, len(f.calls), bound)
			}
			if want := 1.0 / 252; math.Abs(res.P-want) > 1e-12 {
				t.Fatalf("P = %v, want 5/5 against 0/5: %v", res.P, want)
			}
		}
	}
}

// TestBisectSkipsBrokenRelease: a release that cannot run is skipped and
// the bisection goes on with its neighbours; when the bug came in with it,
// the answer names the two neighbours and the untested release between.
func TestBisectSkipsBrokenRelease(t *testing.T) {
	rels := releases(17) // the first middle is 1.8.0
	f := &fakeReplayer{first: "1.11.0", broken: map[string]bool{"1.8.0": true}}
	obs := &recorder{}
	res, err := Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	if res.FirstHas != "1.11.0" || res.LastClean != "1.10.0" {
		t.Errorf("boundary %s | %s, want 1.10.0 | 1.11.0", res.LastClean, res.FirstHas)
	}
	if r := res.release("1.8.0"); r.State != Skipped || !strings.Contains(r.Why, "build failed") {
		t.Errorf("1.8.0: %+v, want skipped for its build", r)
	}
	if !slices.ContainsFunc(obs.visited, func(r Release) bool { return r.Name == "1.8.0" && r.State == Skipped }) {
		t.Errorf("the observer did not hear 1.8.0 skipped: %+v", obs.visited)
	}

	f = &fakeReplayer{first: "1.8.0", broken: map[string]bool{"1.8.0": true}}
	res, err = Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind})
	if err != nil {
		t.Fatal(err)
	}
	if res.FirstHas != "1.9.0" || res.LastClean != "1.7.0" || !slices.Equal(res.Untested, []string{"1.8.0"}) {
		t.Errorf("bug from the broken 1.8.0: boundary %s | %s, untested %v; want 1.7.0 | 1.9.0, untested [1.8.0]", res.LastClean, res.FirstHas, res.Untested)
	}
	if !strings.Contains(Conclusion(res), "untested between them: 1.8.0") {
		t.Errorf("conclusion does not name the untested release: %s", Conclusion(res))
	}
}

// TestBisectRefusedRelease: a release outside the driver's range is
// skipped without a replay.
func TestBisectRefusedRelease(t *testing.T) {
	rels := releases(9)
	f := &fakeReplayer{first: "1.5.0"}
	res, err := Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind, Refused: map[string]string{"1.4.0": "outside the range"}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(f.calls, "1.4.0") {
		t.Error("the refused 1.4.0 was replayed")
	}
	if res.FirstHas != "1.5.0" || res.LastClean != "1.3.0" || !slices.Equal(res.Untested, []string{"1.4.0"}) {
		t.Errorf("boundary %s | %s, untested %v; want 1.3.0 | 1.5.0, untested [1.4.0]", res.LastClean, res.FirstHas, res.Untested)
	}
	if _, err := Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind, Refused: map[string]string{"1.8.0": "outside"}}); !errors.Is(err, ErrConfig) {
		t.Errorf("a refused bad end: err %v, want ErrConfig", err)
	}
}

// TestBisectFlaky: a release with a minority of hits is replayed as many
// times again; it has the find when its hits are significantly more than
// the clean releases', and is skipped as flaky when they are not.
func TestBisectFlaky(t *testing.T) {
	rels := releases(9) // visits 1.0.0, 1.8.0, then 1.4.0
	odd := func(i int) bool { return i%2 == 1 }

	// 1.4.0 shows it in every other replay: 2 of 5 (flaky), then 3 of 5 more:
	// 5 of 10 against the good end's 0 of 5, P = C(10,5)/C(15,5) = 0.084:
	// not significant, so flaky, skipped.
	f := &fakeReplayer{first: "1.4.0", shows: map[string]func(int) bool{"1.4.0": odd}}
	res, err := Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind})
	if err != nil {
		t.Fatal(err)
	}
	r := res.release("1.4.0")
	if r.State != Flaky || !r.Widened || r.Runs != 10 || r.Hits != 5 || math.Abs(r.P-252.0/3003) > 1e-9 {
		t.Errorf("1.4.0: %+v, want flaky, widened, 5 of 10, P 0.084", r)
	}
	if res.FirstHas != "1.5.0" || res.LastClean != "1.3.0" || !slices.Equal(res.Untested, []string{"1.4.0"}) {
		t.Errorf("boundary %s | %s, untested %v; want 1.3.0 | 1.5.0, untested [1.4.0]", res.LastClean, res.FirstHas, res.Untested)
	}

	// 1.4.0 shows it in 2 replays of 3: 3 of 5, a majority: has it, not
	// widened.
	f = &fakeReplayer{first: "1.4.0", shows: map[string]func(int) bool{"1.4.0": func(i int) bool { return i%3 != 0 }}}
	if res, err = Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind}); err != nil {
		t.Fatal(err)
	}
	if r := res.release("1.4.0"); r.State != HasIt || r.Widened || r.Hits != 3 {
		t.Errorf("1.4.0 at 3 of 5: %+v, want has it, not widened", r)
	}

	// 1.2.0 first shows it in 2 of 5, then 5 of 5: 7 of 10 against the
	// clean 1.0.0 and 1.1.0's 0 of 10: P = C(10,7)/C(20,7) < 0.05: has it.
	f = &fakeReplayer{first: "1.2.0", shows: map[string]func(int) bool{"1.2.0": func(i int) bool { return i >= 3 }}}
	if res, err = Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind}); err != nil {
		t.Fatal(err)
	}
	if r := res.release("1.2.0"); r.State != HasIt || !r.Widened || r.Hits != 7 || r.Runs != 10 || r.P >= Alpha {
		t.Errorf("1.2.0: %+v, want has it after widening to 7 of 10", r)
	}
	if res.FirstHas != "1.2.0" || res.LastClean != "1.1.0" {
		t.Errorf("boundary %s | %s, want 1.1.0 | 1.2.0", res.LastClean, res.FirstHas)
	}
}

// TestBisectEnds: no boundary when the good end shows the find or the bad
// end does not; the reason names the release and its counts.
func TestBisectEnds(t *testing.T) {
	rels := releases(5)
	for _, c := range []struct {
		first, want string
	}{
		{"1.0.0", "the good release 1.0.0 is not clean: has it (5 of 5"},
		{"9.0.0", "the bad release 1.4.0 does not show the find: clean (0 of 5"},
	} {
		f := &fakeReplayer{first: c.first}
		res, err := Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found() || !strings.Contains(res.Why, c.want) {
			t.Errorf("bug from %s: found %v, why %q; want %q", c.first, res.Found(), res.Why, c.want)
		}
	}
	f := &fakeReplayer{first: "1.0.0", shows: map[string]func(int) bool{"1.0.0": func(int) bool { return false }, "1.4.0": func(i int) bool { return i%5 == 0 }}}
	res, err := Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind})
	if err != nil || res.Found() || !strings.Contains(res.Why, "1.4.0 does not show the find: flaky (2 of 10") || !strings.Contains(res.Why, "needs more replays") {
		t.Errorf("a flaky bad end: err %v, why %q", err, res.Why)
	}
	f = &fakeReplayer{first: "1.2.0", broken: map[string]bool{"1.4.0": true}}
	res, err = Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind})
	if err != nil || res.Found() || !strings.Contains(res.Why, "1.4.0 does not show the find: skipped: cannot run") {
		t.Errorf("a bad end that cannot run: err %v, why %q", err, res.Why)
	}
}

// TestBisectInterrupted: ctx ending mid-way returns what is known, the
// span the boundary lies in, and ctx's error.
func TestBisectInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	f := &fakeReplayer{first: "1.3.0", cancel: cancel, cancelAt: "1.4.0"}
	res, err := Run(ctx, Config{Releases: releases(9), Replayer: f, Match: isFind})
	if !errors.Is(err, context.Canceled) || !res.Interrupted || res.Found() {
		t.Fatalf("err %v, interrupted %v, found %v", err, res.Interrupted, res.Found())
	}
	if !strings.Contains(res.Why, "between 1.0.0 and 1.8.0") {
		t.Errorf("why %q does not give the span left", res.Why)
	}
}

// TestBisectMatch: only the replays Match accepts count.
func TestBisectMatch(t *testing.T) {
	f := &fakeReplayer{first: "1.0.0"} // every replay a find
	res, err := Run(t.Context(), Config{Releases: releases(3), Replayer: f, Replays: 3, Match: func(t hunt.Trial) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.release("1.0.0"); r.State != Clean || r.Runs != 3 || len(r.Dirs) != 3 {
		t.Errorf("1.0.0: %+v, want clean over 3 replays with their dirs", r)
	}
}

func TestConfigErrors(t *testing.T) {
	f := &fakeReplayer{}
	for _, cfg := range []Config{
		{Releases: []string{"1.0.0"}, Replayer: f, Match: isFind},
		{Releases: releases(3), Match: isFind},
		{Releases: releases(3), Replayer: f},
		{Releases: releases(3), Replayer: f, Match: isFind, Replays: -1},
	} {
		if _, err := Run(t.Context(), cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: err %v, want ErrConfig", cfg, err)
		}
	}
}

// rare shows the find in one replay of every ten (the fourth): a race
// every release had before a regression made it the rule.
func rare(i int) bool { return i%10 == 3 }

// TestBisectByRate puts a regression that made a rare find the rule at
// every place of 12 releases: by rate (Config.Rate) the bisection names
// it and its last neighbour at the old rate; by "shows it at all" it
// stops at a good release that is not clean.
func TestBisectByRate(t *testing.T) {
	rels := releases(12)
	for k := 1; k < len(rels); k++ {
		shows := map[string]func(int) bool{}
		for _, r := range rels[:k] {
			shows[r] = rare
		}
		res, err := Run(t.Context(), Config{Releases: rels, Replayer: &fakeReplayer{first: rels[k], shows: shows}, Match: isFind, Rate: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.FirstHas != rels[k] || res.LastClean != rels[k-1] || !res.Rate {
			t.Fatalf("regression at %s: got %q | %q (%s)", rels[k], res.LastClean, res.FirstHas, res.Why)
		}
		if good, _ := res.Release(rels[0]); good.State != Clean || good.Hits != 1 {
			t.Fatalf("the good release %+v: want the baseline, 1 of 5", good)
		}
		plain, err := Run(t.Context(), Config{Releases: rels, Replayer: &fakeReplayer{first: rels[k], shows: shows}, Match: isFind})
		if err != nil || plain.Found() || !strings.Contains(plain.Why, "not clean") {
			t.Fatalf("not by rate: %+v, %v: want the good release not clean", plain, err)
		}
	}
}

// TestBisectByRateUndecided: a release between the two rates is replayed
// once more and then skipped as flaky (the answer lists it untested); a
// bad release no more often than the good one names nothing.
func TestBisectByRateUndecided(t *testing.T) {
	rels := releases(5) // the first middle is 1.2.0
	half := func(i int) bool { return i%2 == 0 }
	f := &fakeReplayer{first: "1.2.0", shows: map[string]func(int) bool{"1.0.0": rare, "1.1.0": rare, "1.2.0": half}}
	res, err := Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind, Rate: true})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := res.Release("1.2.0"); r.State != Flaky || !r.Widened || r.Runs != 10 {
		t.Fatalf("1.2.0: %+v: want flaky after 10 replays", r)
	}
	if res.LastClean != "1.1.0" || res.FirstHas != "1.3.0" || !slices.Equal(res.Untested, []string{"1.2.0"}) {
		t.Fatalf("boundary %s | %s, untested %v: want 1.1.0 | 1.3.0, 1.2.0 untested", res.LastClean, res.FirstHas, res.Untested)
	}
	if r, _ := res.Release("1.1.0"); !strings.Contains(r.String(), "against the bad release, less often") {
		t.Errorf("1.1.0 reads %q: want its P against the bad release", r.String())
	}
	var table strings.Builder
	if err := WriteTable(&table, res); err != nil || !strings.Contains(table.String(), "classed by rate") ||
		!strings.Contains(table.String(), "not told from either rate") {
		t.Errorf("the table (%v):\n%s\nwant it classed by rate, 1.2.0 told from neither", err, table.String())
	}
	f = &fakeReplayer{first: "1.9.0", shows: map[string]func(int) bool{"1.0.0": rare, "1.4.0": half}}
	res, err = Run(t.Context(), Config{Releases: rels, Replayer: f, Match: isFind, Rate: true})
	if err != nil || res.Found() || !strings.Contains(res.Why, "does not show the find") {
		t.Fatalf("%+v, %v: want no boundary, the bad release not more often than the good", res, err)
	}
}
