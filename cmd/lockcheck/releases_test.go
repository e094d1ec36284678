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
// source, and, against the committed catalog as against the fixture (a
// copy of it), says no later release is without known bugs: a bug open
// since 3.20.1 is in every later one. spring-lock-pubsub@7.0.4 is pointed
// to 7.0.7, the release that fixed the last of its bugs, by the fixture,
// whose Spring library has no open bug; the committed catalog has one
// (tryLock waits twice its time, shown on 6.5.5, no fix), which any later
// release may have.
func TestReleasesOneRelease(t *testing.T) {
	const watchdog, changelog = "redisson-3.43.0-watchdog-stops-after-failed-renewal", "CHANGELOG.md#27-jan-2025---3440-released"
	for _, tc := range []struct {
		release, dir, catalog string
		want                  []string
	}{
		{"redisson@3.43.0", "../../results/releases", testCatalog, []string{watchdog, changelog, "no later release is without known bugs"}},
		{"redisson@3.43.0", fixtureDir, fixtureCatalog, []string{watchdog, changelog, "no later release is without known bugs"}},
		{"spring-lock-pubsub@7.0.4", fixtureDir, fixtureCatalog, []string{
			"spring-lock-pubsub-7.0.4-interrupted-unlock-deletes-regrant", "nearest release without any known bug: spring-lock-pubsub@7.0.7"}},
		{"spring-lock-pubsub@7.0.4", "../../results/releases", testCatalog, []string{
			"spring-lock-pubsub-7.0.4-interrupted-unlock-deletes-regrant", "spring-lock-6.5.5-trylock-waits-twice", "no later release is without known bugs"}},
	} {
		code, stdout, stderr := lockcheck(t, "releases", tc.release, "--dir", tc.dir, "--catalog", tc.catalog)
		if code != exitValid {
			t.Fatalf("%s: exit %d:\n%s", tc.release, code, stderr)
		}
		for _, want := range tc.want {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s (%s): the answer does not name %q:\n%s", tc.release, tc.dir, want, stdout)
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
