package gopeers_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/catalog/gopeers"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// peersIn returns a copy of catalog.Subjects with the peers registered, as
// the CLI registers them.
func peersIn(t *testing.T) *subject.Registry {
	t.Helper()
	reg, err := catalog.Subjects.With()
	if err != nil {
		t.Fatal(err)
	}
	if err := gopeers.Register(reg); err != nil {
		t.Fatal(err)
	}
	return reg
}

// Register adds every peer, once: importing the package adds none, and a
// second call on the same registry fails on the names taken.
func TestRegister(t *testing.T) {
	if _, err := catalog.Subjects.Lookup("redsync"); !errors.Is(err, subject.ErrUnknown) {
		t.Errorf("redsync in catalog.Subjects before Register (%v): importing gopeers registered it", err)
	}
	reg := peersIn(t)
	for _, s := range gopeers.Subjects() {
		if got, err := reg.Lookup(s.Name); err != nil || got.Kind != subject.KindPeer {
			t.Errorf("%s: %v, kind %q", s.Name, err, got.Kind)
		}
	}
	if err := gopeers.Register(reg); err == nil {
		t.Errorf("a second Register on one registry succeeded")
	}
}

// The Go peers run other releases as driver processes (catalog.PeerVersions),
// pinned to the release the binary links (which a test binary may not
// know: its build info can lack the module's version).
func TestPeerVersions(t *testing.T) {
	reg := peersIn(t)
	for _, name := range []string{"redsync", "redislock"} {
		s, err := reg.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Versions == nil || s.Versions.Pinned != s.Release {
			t.Errorf("%s: Versions %v, Release %q", name, s.Versions != nil, s.Release)
		}
		if err := s.Versions.Supports.Valid(); err != nil || s.Versions.Supports.Min == "" {
			t.Errorf("%s: supports %s (%v), want a measured oldest release", name, s.Versions.Supports, err)
		}
	}
	// Outside the range, refused before the module proxy is asked.
	if _, err := reg.Lookup("redsync@v3.0.0"); !errors.Is(err, subject.ErrRelease) || !strings.Contains(err.Error(), "v4.0.0 and later") {
		t.Errorf("redsync@v3.0.0: %v, want ErrRelease naming v4.0.0 and later", err)
	}
	if s, _ := reg.Lookup("redsync-tuned"); s.Versions != nil {
		t.Errorf("redsync-tuned runs other releases: a tuned variant is scored at its library's pin only")
	}
}

// The peers' adapters extend a hold taken without a lease, so the peers
// claim a watchdog: the checker holds such a hold to its renewal, and the
// scenarios and hunts that need renewal run them.
func TestPeersClaimAWatchdog(t *testing.T) {
	reg := peersIn(t)
	for _, name := range []string{"redsync", "redsync-tuned", "redislock", "redislock-tuned"} {
		s, err := reg.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.NoWatchdog {
			t.Errorf("%s: registered without a watchdog", name)
		}
	}
}
