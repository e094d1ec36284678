package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

// TestOtherRequirements reads the shipped python-redis-lock requirements:
// every pinned requirement but the library's own, hashes left out.
func TestOtherRequirements(t *testing.T) {
	dir, err := shippedDir("python-redis-lock")
	if err != nil {
		t.Skip(err)
	}
	got, err := otherRequirements(filepath.Join(dir, "requirements.txt"), "python-redis-lock")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(got, func(r string) bool { return strings.HasPrefix(r, "redis==") }) {
		t.Errorf("no redis pin in %q", got)
	}
	for _, r := range got {
		if strings.Contains(r, "python-redis-lock") || strings.Contains(r, "--hash") || strings.HasSuffix(r, "\\") {
			t.Errorf("requirement %q: want the other pins only, without hashes", r)
		}
	}
}

// TestRslockVersionLine rewrites the shipped Cargo.toml's rslock pin.
func TestRslockVersionLine(t *testing.T) {
	dir, err := shippedDir("rslock")
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "Cargo.toml"))
	if err != nil {
		t.Fatal(err)
	}
	out := string(rslockVersionLine.ReplaceAll(b, []byte(`rslock = { version = "=0.9.1"`)))
	if !strings.Contains(out, `rslock = { version = "=0.9.1", default-features = false`) || strings.Contains(out, `"=0.10.0"`) {
		t.Errorf("Cargo.toml not moved to 0.9.1:\n%s", out)
	}
}

// TestGoPeerTags: the old releases of a peer build with their era's
// adapter tag, the releases of the last era's bound and later with none.
func TestGoPeerTags(t *testing.T) {
	for _, p := range goPeers {
		last := p.eras[len(p.eras)-1]
		if p.tags(last.below) != "" || p.tags("v0.0.1") != p.eras[0].tag {
			t.Errorf("%s: tags(%s) = %q, tags(v0.0.1) = %q", p.name, last.below, p.tags(last.below), p.tags("v0.0.1"))
		}
	}
	for v, want := range map[string]string{"v4.0.3": "redsync_v4_0", "v4.8.0": "redsync_v4_8", "v4.10.0": "redsync_v4_8", "v4.11.0": "redsync_v4_11", "v4.12.0": "", "v4.17.0": ""} {
		if got := goPeers[0].tags(v); got != want {
			t.Errorf("redsync %s builds with %q, want %q", v, got, want)
		}
	}
}

// TestVersionedSubjects: every library subject of a registry says how to
// run other releases, and the bare name's release is its pin.
func TestVersionedSubjects(t *testing.T) {
	for _, name := range []string{"redisson", "redisson-fair", "spring-lock-pubsub", "node-redisson", "node-redlock",
		"python-redis-lock", "pottery-redlock", "redis-py-latest", "rslock"} {
		s, err := Subjects.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		// A peer's release is its module's in the binary's build info,
		// which a test binary may lack.
		if s.Versions == nil || s.Versions.Pinned != s.Release || s.Release == "" && s.Kind != subject.KindPeer {
			t.Errorf("%s: Versions %v, Release %q", name, s.Versions != nil, s.Release)
		}
	}
	for _, name := range []string{"reentrant", "redis-py", "mutant-check-then-set"} {
		if s, _ := Subjects.Lookup(name); s.Versions != nil {
			t.Errorf("%s runs other releases", name)
		}
	}
}

// TestSupportedRanges: every subject that runs other releases has a range
// of release numbers that holds its pin, and docs/drivers.md's table of
// ranges opens its row with that range (or "`NAME` from MIN" for a
// subject whose range starts later than its row's).
func TestSupportedRanges(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "drivers.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The table's rows, by subject named in their first cell: the
	// supported cell (the fourth).
	supported := map[string]string{}
	for _, line := range strings.Split(string(page), "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 5 || !strings.HasPrefix(line, "| `") {
			continue
		}
		for _, name := range strings.Split(strings.TrimPrefix(cells[0], "| "), ", ") {
			supported[strings.Trim(name, "`")] = cells[3]
		}
	}
	var checked int
	for _, s := range Subjects.All() {
		v := s.Versions
		if v == nil {
			continue
		}
		checked++
		if err := v.Supports.Valid(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		if v.Pinned != "" && !v.Supports.Contains(v.Pinned) {
			t.Errorf("%s: pinned %s is outside %s", s.Name, v.Pinned, v.Supports)
		}
		cell, ok := supported[s.Name]
		if !ok && strings.HasPrefix(s.Name, "redisson") {
			cell, ok = supported["redisson*"]
		}
		bounds := v.Supports.Bounds()
		switch {
		case !ok:
			t.Errorf("%s: docs/drivers.md's table of releases has no row for it", s.Name)
		case !strings.HasPrefix(cell, bounds) && !strings.Contains(cell, "`"+s.Name+"` from "+v.Supports.Min):
			t.Errorf("%s: docs/drivers.md says it supports %q, want it to open with %q", s.Name, cell, bounds)
		}
	}
	if checked < 10 {
		t.Errorf("checked %d subjects with releases, want the drivers' and peers' (10 or more)", checked)
	}
}

// TestOutsideRangeRefused: NAME@VERSION outside the driver's range is
// refused before a registry is asked (this test has no network) and names
// the range.
func TestOutsideRangeRefused(t *testing.T) {
	for name, want := range map[string]string{
		"redisson@2.15.2":         "the driver supports, 3.10.0 to 4.x",
		"redisson@3.9.1":          "3.10.0 to 4.x (3.8.x and 3.9.x start on Java 11 or older only, and Debian 12 serves no JDK before 17",
		"redisson-fenced@3.20.0":  "the driver supports, 3.25.0 to 4.x",
		"redisson-spin@3.16.8":    "the driver supports, 3.17.0 to 4.x",
		"spring-lock-spin@5.5.20": "the driver supports, 6.0.0 to 7.x",
		"node-redlock@5.0.0":      "the driver supports, 3.0.0 to 4.x",
		"node-redlock@2.1.0":      "the driver supports, 3.0.0 to 4.x",
		"rslock@0.8.0":            "the driver supports, 0.9.0 to 0.10.x",
		"python-redis-lock@2.2.0": "the driver supports, 2.3.0 and later",
	} {
		_, err := Subjects.Lookup(name)
		if !errors.Is(err, subject.ErrRelease) || !strings.Contains(err.Error(), want) {
			t.Errorf("Lookup(%s): %v, want ErrRelease saying %q", name, err, want)
		}
	}
}
