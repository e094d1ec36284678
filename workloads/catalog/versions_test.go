package catalog

import (
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

// TestGoPeerTags: the old releases of a peer build with its adapter's tag.
func TestGoPeerTags(t *testing.T) {
	for _, p := range goPeers {
		if p.tags(p.oldBelow) != "" || p.tags("v0.0.1") != p.oldTag {
			t.Errorf("%s: tags(%s) = %q, tags(v0.0.1) = %q", p.name, p.oldBelow, p.tags(p.oldBelow), p.tags("v0.0.1"))
		}
	}
	if got := goPeers[0].tags("v4.0.3"); got != "redsync_v4_0" {
		t.Errorf("redsync v4.0.3 builds with %q", got)
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
