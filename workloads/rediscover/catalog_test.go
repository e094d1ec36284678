package rediscover

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

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
		{"introduced after buggy", func(b *Bug) { b.Introduced = "1.0.1" }, "introduced 1.0.1 is newer"},
		{"introduced not a version", func(b *Bug) { b.Introduced = "first" }, "introduced"},
		{"open, buggy not a version", func(b *Bug) { b.Buggy, b.Fixed = "latest", "" }, "buggy"},
		{"no source", func(b *Bug) { b.Sources = nil }, "sources: none"},
		{"http source", func(b *Bug) { b.Sources = []string{"http://example.org/x"} }, "https URL"},
		{"relative source", func(b *Bug) { b.Sources = []string{"CHANGELOG.md"} }, "https URL"},
		{"source twice", func(b *Bug) { b.Sources = []string{"https://a.org/x", "https://a.org/x"} }, "twice"},
		{"known in fixed: itself", func(b *Bug) { b.KnownInFixed = []string{"good"} }, "the bug itself"},
		{"known in fixed: unknown id", func(b *Bug) { b.KnownInFixed = []string{"no-such-bug"} }, "no such bug"},
		{"known in fixed: no source", func(b *Bug) { b.KnownInFixed = []string{"Some bug, no link"} }, "cite an https source"},
	}
	for _, tc := range cases {
		b := good()
		tc.edit(&b)
		err := Catalog{Bugs: []Bug{b}}.Validate()
		if !errors.Is(err, ErrCatalog) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want ErrCatalog naming %q", tc.name, err, tc.want)
		}
	}
	if err := (Catalog{Bugs: []Bug{good()}}).Validate(); err != nil {
		t.Errorf("a good entry: %v", err)
	}
	open := good()
	open.Fixed, open.Introduced = "", open.Buggy
	if err := (Catalog{Bugs: []Bug{open}}).Validate(); err != nil || !open.Open() {
		t.Errorf("an open entry introduced at its buggy release: %v (Open %v)", err, open.Open())
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
