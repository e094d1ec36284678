package releases

import (
	"slices"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

func TestStatusAt(t *testing.T) {
	fixed := rediscover.Bug{ID: "fixed", Buggy: "3.43.0", Fixed: "3.44.0"}
	since := rediscover.Bug{ID: "since", Since: "3.20.1", Buggy: "3.43.0", Fixed: "3.44.0"}
	open := rediscover.Bug{ID: "open", Buggy: "3.20.1"}
	openSince := rediscover.Bug{ID: "open-since", Since: "3.10.0", Buggy: "3.20.1"}
	cases := []struct {
		bug  rediscover.Bug
		v    string
		want Status
	}{
		{fixed, "3.44.0", Without}, // its fix
		{fixed, "3.44.1", Without},
		{fixed, "3.43.0", Has}, // its last buggy release
		{fixed, "3.43.5", Has}, // between the two
		{fixed, "3.44.0-rc1", Has},
		{fixed, "3.42.9", Maybe}, // before it, the start unknown
		{since, "3.20.1", Has},
		{since, "3.20.0", Without}, // just before it came
		{since, "3.43.0", Has},
		{since, "3.44.0", Without},
		{open, "3.20.1", Open},        // the newest release known to have it
		{open, "3.20.0", Maybe},       // before it, the start unknown
		{open, "1.0.0", Maybe},        // any older release
		{open, "3.20.2", OpenMaybe},   // past it, no fix
		{open, "9.0.0", OpenMaybe},    // long past it
		{openSince, "3.10.0", Open},   // from since
		{openSince, "3.9.9", Without}, // just before since
		{openSince, "3.20.1", Open},
		{openSince, "9.0.0", Open}, // past buggy: since says it is there from then on
	}
	for _, c := range cases {
		if got := StatusAt(c.bug, c.v); got != c.want {
			t.Errorf("%s at %s: %s, want %s", c.bug.ID, c.v, got, c.want)
		}
	}
}

// TestStatusAgreesWithHas: a release has, or may have, a bug (Bug.Has, the
// catalog's own rule) exactly when StatusAt is not Without; but between a
// fixed bug's Buggy and Fixed, where Bug.Has stops at Buggy and StatusAt
// says Has up to the fix.
func TestStatusAgreesWithHas(t *testing.T) {
	cat, err := rediscover.LoadFile("../../results/known-bugs.json")
	if err != nil {
		t.Fatal(err)
	}
	probes := []string{"0.1.0", "1.0.3", "1.0.4", "1.0.5", "3.8.0", "3.20.0", "3.20.1", "3.43.0", "3.44.0", "4.6.1", "4.7.0", "4.7.1", "9.0.0"}
	for _, b := range cat.Bugs {
		for _, v := range append(probes, b.Since, b.Buggy, b.Fixed) {
			if v == "" || between(b, v) {
				continue
			}
			if got := StatusAt(b, v); (got != Without) != b.Has(v) {
				t.Errorf("%s at %s: %s, but Bug.Has says %v", b.ID, v, got, b.Has(v))
			}
		}
	}
}

// between says v is after fixed bug b's last buggy release and before its
// fix.
func between(b rediscover.Bug, v string) bool {
	return !b.Open() && subject.CompareReleases(v, b.Buggy) > 0 && subject.CompareReleases(v, b.Fixed) < 0
}

// TestStatusOfTheCatalog checks every bug of the real catalog against its
// own releases: its buggy release has it, its fixed one does not.
func TestStatusOfTheCatalog(t *testing.T) {
	cat, err := rediscover.LoadFile("../../results/known-bugs.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range cat.Bugs {
		want := Has
		if b.Open() {
			want = Open
		}
		if got := StatusAt(b, b.Buggy); got != want {
			t.Errorf("%s at its buggy %s: %s, want %s", b.ID, b.Buggy, got, want)
		}
		if !b.Open() && StatusAt(b, b.Fixed) != Without {
			t.Errorf("%s at its fixed %s: %s", b.ID, b.Fixed, StatusAt(b, b.Fixed))
		}
	}
}

func TestSuggestPrefersTheSameLine(t *testing.T) {
	bug := rediscover.Bug{ID: "b", Buggy: "2.1.0", Fixed: "2.1.1"}
	later := rediscover.Bug{ID: "later", Since: "2.3.0", Buggy: "2.3.0", Fixed: "2.4.0"}
	lib := Library{Name: "lib", Versions: fixtureLib().Versions}
	tab := Build(lib, List{Releases: []string{"2.0.0", "2.1.0", "2.1.1", "2.1.2", "2.2.0", "2.3.0", "2.4.0", "2.5.0"}}, []rediscover.Bug{bug, later}, nil)
	for v, want := range map[string]string{
		"2.1.0": "2.1.2", // the newest patch of its line, not 2.1.1
		"2.3.0": "2.4.0", // its line has the bug: the next line
		"2.0.0": "2.1.2", // 2.0.0 may have b: the next line, after the fix
	} {
		if got := tab.Suggest(v); got != want {
			t.Errorf("Suggest(%s) = %q, want %s", v, got, want)
		}
	}
	if got := tab.Suggest("2.5.0"); got != "" {
		t.Errorf("Suggest(2.5.0), the newest, = %q, want none", got)
	}
}

// TestSuggestPastAnOpenBug: an open bug whose start is not known leaves no
// release clean: older ones may have it, newer ones may have it still.
func TestSuggestPastAnOpenBug(t *testing.T) {
	open := rediscover.Bug{ID: "open", Buggy: "2.3.0", Upstream: "https://example.org/lib/issues/1"}
	lib := Library{Name: "lib", Versions: fixtureLib().Versions}
	tab := Build(lib, List{Releases: []string{"2.1.0", "2.2.0", "2.3.0", "2.4.0"}}, []rediscover.Bug{open}, nil)
	for v, want := range map[string]Standing{
		"2.2.0": {Maybe: []string{"open"}},
		"2.3.0": {Open: []string{"open"}},
		"2.4.0": {OpenMaybe: []string{"open"}},
	} {
		r, ok := tab.Row(v)
		if !ok || !slices.Equal(r.Maybe, want.Maybe) || !slices.Equal(r.Open, want.Open) || !slices.Equal(r.OpenMaybe, want.OpenMaybe) {
			t.Errorf("%s: %+v (listed %v), want %+v", v, r.Standing, ok, want)
		}
		if got := tab.Suggest(v); got != "" || r.Clean() {
			t.Errorf("%s: suggests %q (clean %v), want none", v, got, r.Clean())
		}
	}
}
