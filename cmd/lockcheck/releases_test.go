package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The fixture of workloads/releases: a catalog with an open bug and a
// fake Redisson release list, so that no test asks a registry.
const (
	fixtureDir     = "../../workloads/releases/testdata"
	fixtureCatalog = fixtureDir + "/known-bugs.json"
)

func TestReleasesBadInputExits2(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // the first line of stderr
	}{
		{"unknown library", []string{"nosuch"}, "unknown library nosuch"},
		{"one release only", []string{"fair"}, "fair runs one release only"},
		{"unknown version", []string{"redisson@9.9.9"}, "unknown version redisson@9.9.9"},
		{"outside the range", []string{"redisson@3.2.3"}, "redisson@3.2.3 is outside what the driver supports"},
		{"page of a release", []string{"redisson@3.43.0", "--md", "x.md"}, "--md writes a library's page"},
		{"no library", nil, "want one LIB or LIB@VERSION, got 0"},
		{"two libraries", []string{"redisson", "redsync"}, "got 2"},
		{"no seeds", []string{"redisson", "--seeds", "0"}, "--seeds 0"},
		{"no budget", []string{"redisson", "--budget", "0s"}, "--budget 0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"releases", "--dir", fixtureDir, "--catalog", fixtureCatalog}, tc.args...)
			code, _, stderr := lockcheck(t, args...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != exitUsage || !strings.Contains(first, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and a first line naming %q", code, stderr, exitUsage, tc.want)
			}
		})
	}
}

// TestReleasesOneRelease: redisson@3.43.0 names the watchdog bug and its
// source; against the committed catalog and cache it suggests 4.7.0, and
// against the fixture, whose bug open since 3.20.1 every later release
// has, it says no later release is without known bugs.
func TestReleasesOneRelease(t *testing.T) {
	for _, tc := range []struct {
		dir, catalog, want string
	}{
		{"../../results/releases", testCatalog, "nearest release without any known bug: redisson@4.7.0"},
		{fixtureDir, fixtureCatalog, "no later release is without known bugs"},
	} {
		code, stdout, stderr := lockcheck(t, "releases", "redisson@3.43.0", "--dir", tc.dir, "--catalog", tc.catalog)
		if code != exitValid {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
		for _, want := range []string{"redisson-3.43.0-watchdog-stops-after-failed-renewal", "CHANGELOG.md#27-jan-2025---3440-released", tc.want} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: the answer does not name %q:\n%s", tc.dir, want, stdout)
			}
		}
	}
}

// TestReleasesTableJSON: the committed Redisson table lists at least 15
// releases, 3.43.0 with the watchdog bug.
func TestReleasesTableJSON(t *testing.T) {
	code, stdout, stderr := lockcheck(t, "releases", "redisson", "--json", "--dir", "../../results/releases", "--catalog", testCatalog)
	if code != exitValid {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	var tab struct {
		Releases []struct {
			Release string   `json:"release"`
			Has     []string `json:"has"`
		} `json:"releases"`
	}
	if err := json.Unmarshal([]byte(stdout), &tab); err != nil {
		t.Fatal(err)
	}
	if len(tab.Releases) < 15 {
		t.Errorf("%d Redisson releases, want at least 15", len(tab.Releases))
	}
	for _, r := range tab.Releases {
		if r.Release == "3.43.0" && !strings.Contains(strings.Join(r.Has, " "), "watchdog-stops-after-failed-renewal") {
			t.Errorf("3.43.0 has %v, want the watchdog bug", r.Has)
		}
	}
}
