package rediscover

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// sig parses a signature a test states.
func sig(t testing.TB, text string) model.Signature {
	t.Helper()
	s, err := model.ParseSignature(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// catalogPath is the repository's catalog of known bugs.
var catalogPath = filepath.Join("..", "..", "results", "known-bugs.json")

// TestKnownBugsFile: the shipped catalog parses and validates (schema, no
// duplicates, sources, versions in order), holds the five bugs issue 29
// starts from, and at least 15 more.
func TestKnownBugsFile(t *testing.T) {
	c, err := LoadFile(catalogPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Bugs) < 20 {
		t.Errorf("%d bugs: want the 5 of issue 29 and at least 15 more", len(c.Bugs))
	}
	for _, b := range c.Bugs {
		for _, src := range b.SinceSources {
			if strings.HasPrefix(src, "https://") {
				continue
			}
			if _, err := os.Stat(filepath.Join("..", "..", src)); err != nil {
				t.Errorf("%s: since_sources %s: %v", b.ID, src, err)
			}
		}
	}
	five := map[string]string{ // subject@buggy → fixed
		"redisson@3.43.0": "3.44.0", "redisson@3.8.0": "3.8.1", "redisson-spin@3.17.0": "3.17.1",
		"node-redisson@1.0.3": "1.0.4", "redsync@v4.0.3": "v4.0.4",
	}
	for _, b := range c.Bugs {
		if fixed, ok := five[b.Release(b.Buggy)]; ok && fixed == b.Fixed {
			delete(five, b.Release(b.Buggy))
		}
	}
	if len(five) > 0 {
		t.Errorf("issue 29's bugs missing from the catalog: %v", five)
	}
	byID := map[string]Bug{}
	for _, b := range c.Bugs {
		byID[b.ID] = b
	}
	// issue 41: the interrupted-acquire renewal of 3.20.1 to 4.7.0 is an
	// open bug of its own, which known_in_fixed names by its ID.
	intr, ok := byID["redisson-3.20.1-interrupted-acquire-renewed"]
	if !ok || !intr.Open() || intr.Since != "3.20.1" || !strings.Contains(intr.Upstream, "redisson/issues/7272") {
		t.Errorf("the interrupted-acquire renewal: %+v, want an open bug since 3.20.1 citing redisson#7272", intr)
	}
	if k := byID["redisson-3.43.0-watchdog-stops-after-failed-renewal"].KnownInFixed; !slices.Contains(k, intr.ID) {
		t.Errorf("3.44.0 has the interrupted-acquire renewal, but its known_in_fixed says %v", k)
	}
}

func TestCatalogRejects(t *testing.T) {
	good := func() Bug { return testBug("good") }
	cases := []struct {
		name string
		edit func(*Bug)
		want string
	}{
		{"empty id", func(b *Bug) { b.ID = "" }, "id"},
		{"id with space", func(b *Bug) { b.ID = "a b" }, "id"},
		{"versioned subject", func(b *Bug) { b.Subject = "lib@1.0.0" }, "subject"},
		{"no library", func(b *Bug) { b.Library = " " }, "library: empty"},
		{"no trigger", func(b *Bug) { b.Trigger = "" }, "trigger: empty"},
		{"bad property", func(b *Bug) { b.Property = "speed" }, "property"},
		{"fixed older", func(b *Bug) { b.Buggy, b.Fixed = "1.2.0", "1.1.9" }, "not older"},
		{"same release", func(b *Bug) { b.Buggy, b.Fixed = "v1.0.0", "1.0.0" }, "not older"},
		{"not a version", func(b *Bug) { b.Buggy = "latest" }, "buggy"},
		{"open, buggy not a version", func(b *Bug) { b.Buggy, b.Fixed, b.Upstream = "latest", "", "https://example.org/i/1" }, "buggy"},
		{"no source", func(b *Bug) { b.Sources = nil }, "sources: none"},
		{"http source", func(b *Bug) { b.Sources = []string{"http://example.org/x"} }, "https URL"},
		{"relative source", func(b *Bug) { b.Sources = []string{"CHANGELOG.md"} }, "https URL"},
		{"source twice", func(b *Bug) { b.Sources = []string{"https://a.org/x", "https://a.org/x"} }, "twice"},
		{"known in fixed: itself", func(b *Bug) { b.KnownInFixed = []string{"good"} }, "the bug itself"},
		{"known in fixed: unknown id", func(b *Bug) { b.KnownInFixed = []string{"no-such-bug"} }, "no such bug"},
		{"known in fixed: a description", func(b *Bug) { b.KnownInFixed = []string{"Some bug, https://example.org/x"} }, "catalog entries only"},
		{"known in fixed: twice", func(b *Bug) { b.KnownInFixed = []string{"other", "other"} }, "listed twice"},
		{"no signature", func(b *Bug) { b.Signature = model.Signature{} }, "signature"},
		{"signature of another class", func(b *Bug) { b.Signature = sig(t, "refusal/refused-free/acquire/*") }, "not the property"},
		{"signature without a shape", func(b *Bug) { b.Signature = sig(t, "safety/*/acquire/*") }, "no shape"},
		{"also signature without a shape", func(b *Bug) { b.AlsoSignatures = []model.Signature{sig(t, "contract/*/release/*")} }, "also_signatures"},
		{"open without upstream", func(b *Bug) { b.Fixed = "" }, "upstream"},
		{"open with an http upstream", func(b *Bug) { b.Fixed, b.Upstream = "", "http://example.org/issue/1" }, "upstream"},
		{"upstream on a fixed bug", func(b *Bug) { b.Upstream = "https://example.org/issue/1" }, "on a fixed bug"},
		{"known in fixed on an open bug", func(b *Bug) { b.Fixed, b.Upstream, b.KnownInFixed = "", "https://example.org/i/1", []string{"other"} }, "open bug"},
		{"since after buggy", func(b *Bug) { b.Since, b.SinceSources = "1.1.0", []string{"results/bisect/x.json"} }, "since 1.1.0 is not older"},
		{"since not a version", func(b *Bug) { b.Since, b.SinceSources = "first", []string{"results/bisect/x.json"} }, "since"},
		{"since without its sources", func(b *Bug) { b.Since = "0.9.0" }, "no since_sources"},
		{"since sources without since", func(b *Bug) { b.SinceSources = []string{"results/bisect/x.json"} }, "without since"},
		{"since source outside the repository", func(b *Bug) { b.Since, b.SinceSources = "0.9.0", []string{"../x.json"} }, "since_sources"},
		{"since source over http", func(b *Bug) { b.Since, b.SinceSources = "0.9.0", []string{"http://example.org/x"} }, "since_sources"},
	}
	for _, tc := range cases {
		b := good()
		tc.edit(&b)
		err := Catalog{Bugs: []Bug{b, testBug("other")}}.Validate()
		if !errors.Is(err, ErrCatalog) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrCatalog naming %q", tc.name, err, tc.want)
		}
	}
	if err := (Catalog{Bugs: []Bug{good()}}).Validate(); err != nil {
		t.Errorf("a good entry: %v", err)
	}
	open := good()
	open.Fixed, open.Since, open.Upstream = "", "0.9.0", "https://example.org/lib/issues/1"
	open.SinceSources = []string{"https://example.org/lib/commit/1", "results/bisect/open.json"}
	if err := (Catalog{Bugs: []Bug{open}}).Validate(); err != nil {
		t.Errorf("a good open entry: %v", err)
	}
}

func TestCatalogDuplicates(t *testing.T) {
	a, b := testBug("a"), testBug("a")
	b.Says = "another fix"
	if err := (Catalog{Bugs: []Bug{a, b}}).Validate(); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("two entries with one id: %v", err)
	}
	b = testBug("b")
	b.Says = strings.ToUpper(a.Says)
	if err := (Catalog{Bugs: []Bug{a, b}}).Validate(); err == nil || !strings.Contains(err.Error(), "same releases, same quote") {
		t.Errorf("one bug under two ids: %v", err)
	}
	if err := (Catalog{}).Validate(); !errors.Is(err, ErrCatalog) {
		t.Errorf("an empty catalog: %v", err)
	}
}

func TestParseRejectsUnknownFields(t *testing.T) {
	data, err := json.Marshal(map[string]any{"bugs": []Bug{testBug("a")}, "extra": 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(data); !errors.Is(err, ErrCatalog) || !strings.Contains(err.Error(), "extra") {
		t.Errorf("unknown field: %v", err)
	}
}

func TestSelect(t *testing.T) {
	c := Catalog{Bugs: []Bug{testBug("a"), testBug("b"), testBug("c")}}
	got, err := c.Select([]string{"c", "a"})
	if err != nil || len(got) != 2 || got[0].ID != "c" || got[1].ID != "a" {
		t.Errorf("Select(c, a) = %v, %v", got, err)
	}
	if all, _ := c.Select(nil); len(all) != 3 {
		t.Errorf("Select() = %d bugs, want all 3", len(all))
	}
	if _, err := c.Select([]string{"zz"}); !errors.Is(err, ErrUnknownBug) || !strings.Contains(err.Error(), "a, b, c") {
		t.Errorf("Select(zz): %v, want ErrUnknownBug listing the known IDs", err)
	}
}

// TestCatalogAlone: a library-alone script needs subjects, checkers, a
// script and a claim, and names only a bug of the catalog.
func TestCatalogAlone(t *testing.T) {
	good := results.KnownRepro{Subjects: []string{"lib"}, Checkers: []string{model.CheckLinearizable}, Script: "repro.sh", Claim: "breaks alone", Bug: "a"}
	cases := []struct {
		name string
		edit func(*results.KnownRepro)
		want string
	}{
		{"no subjects", func(r *results.KnownRepro) { r.Subjects = nil }, "no subjects"},
		{"no checkers", func(r *results.KnownRepro) { r.Checkers = nil }, "no checkers"},
		{"no script", func(r *results.KnownRepro) { r.Script = " " }, "script or claim empty"},
		{"no claim", func(r *results.KnownRepro) { r.Claim = "" }, "script or claim empty"},
		{"unknown bug", func(r *results.KnownRepro) { r.Bug = "b" }, "no such bug"},
	}
	for _, tc := range cases {
		r := good
		tc.edit(&r)
		err := Catalog{Bugs: []Bug{testBug("a")}, Alone: []results.KnownRepro{r}}.Validate()
		if !errors.Is(err, ErrCatalog) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrCatalog naming %q", tc.name, err, tc.want)
		}
	}
	if err := (Catalog{Bugs: []Bug{testBug("a")}, Alone: []results.KnownRepro{good}}).Validate(); err != nil {
		t.Errorf("a good script: %v", err)
	}
}

// A bug's defect may show as anomalies of several classes: a find with any
// of its signatures is the bug's, and one with none is not.
func TestBugMatchesAlsoSignatures(t *testing.T) {
	b := testBug("good")
	b.Property, b.Signature = model.ClassContract, sig(t, "contract/unlock-after-lapse/release/*")
	b.AlsoSignatures = []model.Signature{sig(t, "safety/foreign-release/*/*")}
	for text, want := range map[string]bool{
		"contract/unlock-after-lapse/release/none":                   true,
		"safety/foreign-release/acquire+release/beyond:client-stall": true,
		"safety/double-grant/acquire/none":                           false,
		"contract/late-answer/acquire/none":                          false,
	} {
		if got := b.Matches(sig(t, text)); got != want {
			t.Errorf("Matches(%s) = %v, want %v", text, got, want)
		}
	}
	if err := (Catalog{Bugs: []Bug{b}}).Validate(); err != nil {
		t.Errorf("an entry with also_signatures: %v", err)
	}
}
