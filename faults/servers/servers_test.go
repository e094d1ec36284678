package servers_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/faults/servers"
)

func TestResolveUnknown(t *testing.T) {
	_, err := servers.Resolve(t.Context(), "redis-5.0")
	if !errors.Is(err, servers.ErrUnknown) || !strings.Contains(err.Error(), "valkey-8.1") {
		t.Fatalf("Resolve(redis-5.0): %v; want ErrUnknown listing the names", err)
	}
}

// TestResolveMissing: a cache without the server says it is missing and
// how to get it.
func TestResolveMissing(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	_, err := servers.Resolve(t.Context(), "valkey-8.1")
	if !errors.Is(err, servers.ErrMissing) || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("Resolve(valkey-8.1) with an empty cache: %v; want ErrMissing naming make deps", err)
	}
}

// TestResolveChecksVersion: a binary in the cache that is not the version
// its name says is refused.
func TestResolveChecksVersion(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := filepath.Join(cache, "lockcheck", "redis-6.2")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\necho 'Redis server v=7.2.4 sha=0'\n"
	if err := os.WriteFile(filepath.Join(dir, "redis-server"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := servers.Resolve(t.Context(), "redis-6.2")
	if err == nil || !strings.Contains(err.Error(), "7.2.4") {
		t.Fatalf("Resolve(redis-6.2) of a 7.2.4 binary: %v; want a version error", err)
	}
}

// TestResolveInstalled resolves every server this machine has (make deps
// installs them) and checks its name and version agree.
func TestResolveInstalled(t *testing.T) {
	def, err := servers.Resolve(t.Context(), "")
	if err != nil {
		t.Skipf("skipping: no default redis-server: %v", err)
	}
	if !strings.HasPrefix(def.Name, "redis-") || !strings.HasPrefix(def.Version, strings.TrimPrefix(def.Name, "redis-")) {
		t.Errorf("default server %v: name and version disagree", def)
	}
	for _, name := range servers.Names {
		s, err := servers.Resolve(t.Context(), name)
		if errors.Is(err, servers.ErrMissing) {
			t.Logf("%s: %v", name, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.Name != name || !strings.HasPrefix(s.Version, name[strings.LastIndex(name, "-")+1:]+".") {
			t.Errorf("Resolve(%s) = %v", name, s)
		}
	}
}
