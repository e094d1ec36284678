package releases

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// fixtureLib is Redisson as the catalog's subjects name it, with the
// driver's range; it asks no registry.
func fixtureLib() Library {
	return Library{
		Name: "redisson",
		Versions: &subject.Versions{Registry: "Maven Central org.redisson:redisson", Pinned: "3.52.0",
			Supports: subject.Range{Min: "3.8.0", Max: "4.x"}},
		Subjects: []string{"redisson", "redisson-fair", "redisson-fenced", "redisson-latch", "redisson-multilock",
			"redisson-permit-semaphore", "redisson-redlock", "redisson-rwlock", "redisson-semaphore", "redisson-spin"},
	}
}

// fixtureTable is the table of testdata: its catalog (a copy of the real
// one, open bugs included) and its fake release list, keep(bug) choosing the bugs.
func fixtureTable(t *testing.T, keep func(rediscover.Bug) bool) Table {
	t.Helper()
	cat, err := rediscover.LoadFile("testdata/known-bugs.json")
	if err != nil {
		t.Fatal(err)
	}
	list, ok, err := LoadList("testdata", "redisson")
	if err != nil || !ok {
		t.Fatalf("fixture list: %v (found %v)", err, ok)
	}
	lib := fixtureLib()
	var bugs []rediscover.Bug
	for _, b := range lib.Bugs(cat) {
		if keep == nil || keep(b) {
			bugs = append(bugs, b)
		}
	}
	return Build(lib, list, bugs, nil)
}

const openBug = "redisson-3.20.1-interrupted-acquire-renewed" // open since 3.20.1

// fairOpen are the fair lock's open bugs, whose first release the catalog
// does not know; 4.7.0 is the newest known to have them.
var fairOpen = []string{"redisson-fair-breaks-fifo", "redisson-fair-late-unlock-answers-ok"}

func TestAnswersMatchTheCatalog(t *testing.T) {
	tab := fixtureTable(t, nil)
	if n := len(tab.Bugs); n != 33 {
		t.Fatalf("%d Redisson bugs in the fixture, want 33 (30 fixed, 3 open)", n)
	}
	cases := []struct {
		release              string
		has, open, openMaybe []string
		maybe                int
		maybeSample          string
	}{
		{"3.10.5", []string{"redisson-3.10.5-unlock-succeeds-on-missing-lock"}, nil, nil, 29, "redisson-3.10.6-renews-missing-lock"},
		{"3.20.0", nil, nil, nil, 16, fairOpen[0]}, // just before the open bug's since
		{"3.27.1", nil, []string{openBug}, nil, 13, "redisson-3.27.2-missed-unlock-message"},
		{"3.43.0", []string{"redisson-3.43.0-watchdog-stops-after-failed-renewal", "redisson-rwlock-3.43.0-unlock-succeeds-on-missing-lock"},
			[]string{openBug}, nil, 7, "redisson-3.45.1-reentry-breaks-renewal"},
		{"4.7.0", nil, append([]string{openBug}, fairOpen...), nil, 0, ""},
		{"4.8.0-rc1", nil, []string{openBug}, fairOpen, 0, ""}, // past the newest known to have the fair ones
	}
	for _, c := range cases {
		a, err := tab.Answer(c.release)
		if err != nil {
			t.Fatalf("%s: %v", c.release, err)
		}
		if !slices.Equal(a.Row.Has, c.has) || !slices.Equal(a.Row.Open, c.open) || !slices.Equal(a.Row.OpenMaybe, c.openMaybe) {
			t.Errorf("%s: has %v open %v open (may have) %v, want has %v open %v open (may have) %v",
				c.release, a.Row.Has, a.Row.Open, a.Row.OpenMaybe, c.has, c.open, c.openMaybe)
		}
		if len(a.Maybe) != c.maybe || (c.maybeSample != "" && !slices.Contains(a.Row.Maybe, c.maybeSample)) {
			t.Errorf("%s: may have %v, want %d of them with %s", c.release, a.Row.Maybe, c.maybe, c.maybeSample)
		}
		if a.Suggest != "" || !a.NoneClean {
			t.Errorf("%s: suggests %q (none clean %v): with open bugs, one since 3.20.1, no later release is without known bugs", c.release, a.Suggest, a.NoneClean)
		}
	}
}

func TestSuggestWithoutTheOpenBug(t *testing.T) {
	tab := fixtureTable(t, func(b rediscover.Bug) bool { return !b.Open() })
	for v, want := range map[string]string{"3.43.0": "4.7.0", "3.10.5": "4.7.0", "4.6.1": "4.7.0", "3.27.1": "4.7.0"} {
		a, err := tab.Answer(v)
		if err != nil {
			t.Fatal(err)
		}
		if a.Suggest != want || a.NoneClean {
			t.Errorf("%s: suggests %q (none clean %v), want %s", v, a.Suggest, a.NoneClean, want)
		}
	}
	a, err := tab.Answer("4.7.0")
	if err != nil || !a.Clean() || a.Suggest != "" {
		t.Errorf("4.7.0: %+v %v, want clean with no suggestion", a.Standing, err)
	}
}

func TestTableRows(t *testing.T) {
	tab := fixtureTable(t, nil)
	for _, v := range []string{"4.8.0-rc1", "3.27.1", "4.6.0", "3.10.4"} {
		if _, ok := tab.Row(v); ok {
			t.Errorf("%s listed: neither the newest stable patch of its line nor catalogued", v)
		}
	}
	type flags struct{ Newest, Catalogued, Served, Supported, Pinned bool }
	for v, want := range map[string]flags{
		"4.7.0":  {Newest: true, Catalogued: true, Served: true, Supported: true},
		"3.27.2": {Newest: true, Catalogued: true, Served: true, Supported: true},
		"3.52.0": {Newest: true, Catalogued: true, Served: true, Supported: true, Pinned: true},
		"3.13.6": {Catalogued: true, Supported: true},
		"3.2.4":  {Newest: true, Catalogued: true, Served: true},
		"2.15.2": {Newest: true, Served: true},
	} {
		r, ok := tab.Row(v)
		got := flags{Newest: r.Newest, Catalogued: r.Catalogued, Served: r.Served, Supported: r.Supported, Pinned: r.Pinned}
		if !ok || got != want {
			t.Errorf("%s: row %+v (listed %v), want %+v", v, got, ok, want)
		}
	}
	if len(tab.Rows) < 15 {
		t.Errorf("%d rows, want at least 15", len(tab.Rows))
	}
	for i := 1; i < len(tab.Rows); i++ {
		if subject.CompareReleases(tab.Rows[i-1].Release, tab.Rows[i].Release) <= 0 {
			t.Fatalf("rows not newest first: %s then %s", tab.Rows[i-1].Release, tab.Rows[i].Release)
		}
	}
}

func TestAnswerRefuses(t *testing.T) {
	tab := fixtureTable(t, nil)
	for v, want := range map[string]string{
		"9.9.9":  "unknown version redisson@9.9.9",
		"3.27.3": "unknown version",
		"3.2.3":  "outside what the driver supports",
		"1.0.3":  "outside what the driver supports",
	} {
		_, err := tab.Answer(v)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line of ErrInput naming %q", v, err, want)
		}
	}
	if _, err := tab.Answer("3.13.6"); err != nil {
		t.Errorf("3.13.6, catalogued though the fake registry does not serve it: %v", err)
	}
}
