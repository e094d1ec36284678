package subject

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// fake returns a subject whose Configure records the options it was given.
func fake(name string, kind Kind, got *OpenOptions) Subject {
	return Subject{
		Name: name, Kind: kind, Reentrant: true, Fair: true,
		Configure: func(o OpenOptions) impl.MakerFunc {
			if got != nil {
				*got = o
			}
			return func(context.Context, redis.UniversalClient) (impl.Maker, error) { return nil, nil }
		},
	}
}

func TestRegisterRefusesBadSubjects(t *testing.T) {
	r, err := NewRegistry(fake("a", KindReference, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    Subject
		want string
	}{
		{Subject{Name: "", Open: fake("x", "", nil).Configure(OpenOptions{})}, "empty name"},
		{Subject{Name: "b"}, "nil Open"},
		{fake("a", KindPeer, nil), "already registered"},
	} {
		if err := r.Register(tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Register(%q): %v, want %q", tc.s.Name, err, tc.want)
		}
	}
	if got := r.Names(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("names after refusals = %v", got)
	}
}

// TestRegisterDefaults: a subject without a kind is a user's; one with only
// Configure gets an Open made with its own watchdog lease.
func TestRegisterDefaults(t *testing.T) {
	var got OpenOptions
	s := fake("mine", "", &got)
	s.WatchdogLease = 7 * time.Second
	r, err := NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	s, err = r.Lookup("mine")
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != KindUser || s.Open == nil || got.WatchdogLease != 7*time.Second {
		t.Fatalf("registered %+v, Configure saw %+v", s, got)
	}
	mf, lease := s.MakerFor(OpenOptions{WatchdogLease: time.Second, Seed: 3})
	if mf == nil || lease != time.Second || got.Seed != 3 {
		t.Fatalf("MakerFor: lease %v, Configure saw %+v", lease, got)
	}
}

func TestLookup(t *testing.T) {
	r, err := NewRegistry(fake("b", KindMutant, nil), fake("a", KindReference, nil), fake("c", KindPeer, nil))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Lookup("nope")
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "[a c b]") {
		t.Fatalf("Lookup(nope) = %v, want ErrUnknown listing a, c, b", err)
	}
	m, err := r.Lookup("a+b")
	if err != nil || m.Kind != KindMixed || !slices.Equal(m.PartNames(), []string{"a", "b"}) {
		t.Fatalf("Lookup(a+b) = %+v, %v", m, err)
	}
	if _, err := r.Lookup("a+nope"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("Lookup(a+nope) = %v, want ErrUnknown", err)
	}
}

// TestAllByKindWith: All sorts by kind then name, ByKind filters, With
// replaces by name and leaves the original alone.
func TestAllByKindWith(t *testing.T) {
	r, err := NewRegistry(fake("m", KindMutant, nil), fake("z", KindReference, nil), fake("a", KindReference, nil), fake("p", KindPeer, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Names(); !slices.Equal(got, []string{"a", "z", "p", "m"}) {
		t.Fatalf("Names = %v", got)
	}
	var refs []string
	for _, s := range r.ByKind(KindReference) {
		refs = append(refs, s.Name)
	}
	if !slices.Equal(refs, []string{"a", "z"}) {
		t.Fatalf("ByKind(reference) = %v", refs)
	}
	w, err := r.With(fake("p", KindUser, nil))
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := w.Lookup("p"); p.Kind != KindUser {
		t.Fatalf("With: p is %s, want the replacement", p.Kind)
	}
	if p, _ := r.Lookup("p"); p.Kind != KindPeer {
		t.Fatalf("With changed the original: p is %s", p.Kind)
	}
}
