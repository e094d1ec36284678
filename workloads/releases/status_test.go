package releases

import (
	"testing"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

func TestStatusAt(t *testing.T) {
	fixed := rediscover.Bug{ID: "fixed", Buggy: "3.43.0", Fixed: "3.44.0"}
	since := rediscover.Bug{ID: "since", Introduced: "3.20.1", Buggy: "3.43.0", Fixed: "3.44.0"}
	open := rediscover.Bug{ID: "open", Buggy: "3.20.1"}
	openSince := rediscover.Bug{ID: "open-since", Introduced: "3.10.0", Buggy: "3.20.1"}
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
		{since, "3.20.0", Without}, // just before its introduction
		{since, "3.44.0", Without},
		{open, "3.20.1", Open},
		{open, "9.0.0", Open},
		{open, "3.20.0", Without},
		{openSince, "3.10.0", Open},
		{openSince, "3.9.9", Without},
	}
	for _, c := range cases {
		if got := StatusAt(c.bug, c.v); got != c.want {
			t.Errorf("%s at %s: %s, want %s", c.bug.ID, c.v, got, c.want)
		}
	}
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
	later := rediscover.Bug{ID: "later", Introduced: "2.3.0", Buggy: "2.3.0", Fixed: "2.4.0"}
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
