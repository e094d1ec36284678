package subject

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// versioned returns a subject "lib" pinned at 2.0.0 whose registry serves
// served; At records the releases asked for and names the subject after
// them.
func versioned(served []string, asked *[]string) Subject {
	s := fake("lib", KindExternal, nil)
	s.Release = "2.0.0"
	s.Versions = &Versions{
		Registry: "a test registry", Pinned: "2.0.0",
		List: func(context.Context) ([]string, error) { return served, nil },
		At: func(_ context.Context, v string) (Subject, error) {
			*asked = append(*asked, v)
			if !slices.Contains(served, v) {
				return Subject{}, fmt.Errorf("%w: lib@%s: not served", ErrRelease, v)
			}
			at := fake("lib@"+v, KindExternal, nil)
			at.Release = v
			return at, nil
		},
	}
	return s
}

func TestLookupVersion(t *testing.T) {
	var asked []string
	served := []string{"1.0.0", "2.0.0", "2.1.0", "3.0.0-rc.1"}
	r, err := NewRegistry(versioned(served, &asked), fake("own", KindReference, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, wantName, wantRelease, wantErr string
	}{
		{"lib", "lib", "2.0.0", ""},
		{"lib@2.0.0", "lib", "2.0.0", ""}, // the pinned release is the bare subject
		{"lib@1.0.0", "lib@1.0.0", "1.0.0", ""},
		{"lib@latest", "lib@2.1.0", "2.1.0", ""}, // newest stable, not the rc
		{"lib@9.9.9", "", "", "lib@9.9.9: not served"},
		{"lib@", "", "", "no version after"},
		{"own@1.0.0", "", "", "runs one release only"},
		{"nobody@1.0.0", "", "", "unknown subject"},
		{"lib@1.0.0+own", "lib@1.0.0+own", "", ""},
	} {
		s, err := r.Lookup(c.name)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("Lookup(%q): error %v, want one containing %q", c.name, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("Lookup(%q): %v", c.name, err)
		case s.Name != c.wantName || s.Release != c.wantRelease:
			t.Errorf("Lookup(%q) = %s at %q, want %s at %q", c.name, s.Name, s.Release, c.wantName, c.wantRelease)
		}
	}
	if want := []string{"1.0.0", "2.1.0", "9.9.9", "1.0.0"}; !slices.Equal(asked, want) {
		t.Errorf("At was asked for %v, want %v (never for the pinned release)", asked, want)
	}
	if _, err := r.Lookup("own@1.0.0"); !errors.Is(err, ErrRelease) || !strings.Contains(err.Error(), ErrNoVersions.Error()) {
		t.Errorf("own@1.0.0: %v, want ErrRelease naming ErrNoVersions", err)
	}
}

func TestSplitVersion(t *testing.T) {
	for in, want := range map[string][2]string{
		"redisson": {"redisson", ""}, "redisson@4.7.0": {"redisson", "4.7.0"},
		"redsync@v4.0.3": {"redsync", "v4.0.3"}, "a@latest": {"a", "latest"},
	} {
		if b, v := SplitVersion(in); b != want[0] || v != want[1] {
			t.Errorf("SplitVersion(%q) = %q, %q; want %q", in, b, v, want)
		}
	}
}

func TestNewestStable(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"1.0", "2.0.0-beta", "1.1"}, "1.1"},
		{[]string{"5.4.12", "6.0.0.RELEASE", "7.1.0-M1"}, "6.0.0.RELEASE"},
		{[]string{"v4.0.3", "v4.18.1"}, "v4.18.1"},
		{[]string{"3.0.0rc1"}, ""},
		{nil, ""},
	} {
		if got := NewestStable(c.in); got != c.want {
			t.Errorf("NewestStable(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A release outside the driver's range is refused at once, naming the
// range: the registry is not asked and nothing is fetched.
func TestLookupVersionOutsideRange(t *testing.T) {
	var asked []string
	s := versioned([]string{"0.9.0", "1.0.0", "2.0.0", "2.1.0", "3.0.0"}, &asked)
	listed := 0
	list := s.Versions.List
	s.Versions.List = func(ctx context.Context) ([]string, error) { listed++; return list(ctx) }
	s.Versions.Supports = Range{Min: "1.0.0", Max: "2.x", Note: "3 has another API"}
	r, err := NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, want string // want: in the error; "" for none
		lists      int
	}{
		{"lib@0.9.0", "lib@0.9.0 is outside what the driver supports, 1.0.0 to 2.x (3 has another API); lockcheck subjects --versions lib marks each release", 0},
		{"lib@3.0.0", "lib@3.0.0 is outside what the driver supports, 1.0.0 to 2.x", 0},
		{"lib@1.0.0-rc1", "what the driver supports, 1.0.0 to 2.x", 0}, // before its release
		{"lib@nightly", "what the driver supports, 1.0.0 to 2.x", 0},
		{"lib@latest", "lib@latest (3.0.0) is outside what the driver supports, 1.0.0 to 2.x", 1},
		{"lib@2.1.0", "", 0},
		{"lib@2.0.0", "", 0},
	} {
		asked, listed = nil, 0
		_, err := r.Lookup(c.name)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Lookup(%q): %v", c.name, err)
		case c.want != "" && (!errors.Is(err, ErrRelease) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Lookup(%q): error %v, want ErrRelease containing %q", c.name, err, c.want)
		case c.want != "" && len(asked) > 0:
			t.Errorf("Lookup(%q) fetched %v before refusing", c.name, asked)
		}
		if listed != c.lists {
			t.Errorf("Lookup(%q) asked the registry %d times, want %d", c.name, listed, c.lists)
		}
	}
}
