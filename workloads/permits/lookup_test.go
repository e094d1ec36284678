package permits

import (
	"errors"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// NAME@VERSION and A+B resolve without a registry where they need none:
// Redisson's pinned release is the bare subject, a Go port has no
// releases, a fleet is of one kind of object; names of locks are not ours.
func TestLookupVersions(t *testing.T) {
	pinned := catalog.RedissonObject("x", "semaphore", "semaphore", "").Release
	s, err := Lookup("redisson-semaphore@" + pinned)
	if err != nil || s.Name != "redisson-semaphore" || s.Release != pinned || s.Open == nil {
		t.Fatalf("redisson-semaphore@%s = %s (release %q), %v; want the bare subject", pinned, s.Name, s.Release, err)
	}
	mix, err := Lookup("permit-semaphore+redisson-permit-semaphore@" + pinned)
	if err != nil || len(mix.Parts) != 2 || mix.Parts[1].OpenPermits == nil {
		t.Fatalf("a fleet at a release: %+v, %v", mix, err)
	}
	for _, tc := range []struct {
		name string
		want error
	}{
		{"semaphore@1.0.0", subject.ErrNoVersions},
		{"mutant-sem-add-no-wake@1.0.0", subject.ErrRelease},
		{"redisson-latch@", subject.ErrRelease},
		{"redisson@3.16.1", subject.ErrUnknown},
		{"nope", subject.ErrUnknown},
		{"semaphore+latch", subject.ErrUnknown},
		{"semaphore+nope", subject.ErrUnknown},
	} {
		if _, err := Lookup(tc.name); !errors.Is(err, tc.want) {
			t.Errorf("Lookup(%q) = %v, want %v", tc.name, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"redisson-semaphore@3.16.1", true},
		{"semaphore+redisson-semaphore@latest", true},
		{"redisson@3.16.1", false},
		{"semaphore+reentrant", false},
	} {
		if got := Known(tc.name); got != tc.want {
			t.Errorf("Known(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// No semaphore or latch has the name of a lock: `lockcheck run` routes by
// name.
func TestNamesApartFromLocks(t *testing.T) {
	for _, s := range Subjects() {
		if _, err := catalog.Subjects.Lookup(s.Name); !errors.Is(err, subject.ErrUnknown) {
			t.Errorf("%s is a lock subject's name too (%v)", s.Name, err)
		}
	}
}

// A round lasts RoundLength, and WithDuration fills a duration with whole
// rounds, at least one.
func TestPlanWithDuration(t *testing.T) {
	p := DefaultPlan(1)
	if got := p.WithDuration(3 * p.RoundLength()).Rounds; got != 3 {
		t.Errorf("3 round lengths: %d rounds", got)
	}
	if got := p.WithDuration(p.RoundLength() / 2).Rounds; got != 1 {
		t.Errorf("half a round: %d rounds", got)
	}
	if got := p.roundStart(2); got != 2*p.RoundLength() {
		t.Errorf("round 2 starts at %v, want %v", got, 2*p.RoundLength())
	}
}
