package rediscover

import (
	"slices"
	"testing"
)

func TestHas(t *testing.T) {
	b := testBug("b") // buggy 1.0.0, fixed 1.0.1
	open := testBug("o")
	open.Fixed, open.Since, open.Upstream = "", "0.9.0", "https://example.org/lib/issues/1"
	for _, tc := range []struct {
		bug     Bug
		version string
		want    bool
	}{
		{b, "1.0.0", true}, {b, "0.1.0", true}, {b, "1.0.1", false}, {b, "nope", false},
		{open, "0.8.9", false}, {open, "0.9.0", true}, {open, "7.0.0", true},
	} {
		if got := tc.bug.Has(tc.version); got != tc.want {
			t.Errorf("%s has %s: %v, want %v", tc.bug.ID, tc.version, got, tc.want)
		}
	}
}

// knownAt: on the fixed side only what known_in_fixed names, or what a
// stated range spans, absorbs a flag; on the buggy side, where it only
// lets the hunt go on, the subject's bugs that may span the release too.
func TestKnownAt(t *testing.T) {
	sought := testBug("sought")
	named, later, ranged, other := testBug("named"), testBug("later"), testBug("ranged"), testBug("other-lib")
	sought.KnownInFixed = []string{"named", "later"}
	later.Since, later.Buggy, later.Fixed = "2.0.0", "2.1.0", "2.2.0"
	ranged.Since, ranged.Buggy, ranged.Fixed = "0.5.0", "3.0.0", "3.0.1"
	other.Subject = "other"
	all := []Bug{sought, named, later, ranged, other}
	ids := func(bs []Bug) []string {
		var out []string
		for _, b := range bs {
			out = append(out, b.ID)
		}
		return out
	}
	if got := ids(knownAt(all, sought, SideFixed)); !slices.Equal(got, []string{"named", "later", "ranged"}) {
		t.Errorf("fixed side: %v, want the named bugs and the one whose range spans 1.0.1", got)
	}
	if got := ids(knownAt(all, sought, SideBuggy)); !slices.Equal(got, []string{"named", "ranged"}) {
		t.Errorf("buggy side: %v, want named (same subject, may span 1.0.0) and ranged, not later (since 2.0.0)", got)
	}
}
