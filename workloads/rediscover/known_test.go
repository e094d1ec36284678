package rediscover

import (
	"slices"
	"testing"

	"github.com/lockcheck/lockcheck/model"
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

// sharedAt: the bugs the fix left in, on the fixed side all of them, on
// the buggy side those that were there already; claims: a signature that
// one of them matches as well shows nothing, on either side.
func TestSharedAtAndClaims(t *testing.T) {
	sought, kept, later, gone := testBug("sought"), testBug("kept"), testBug("later"), testBug("gone")
	sought.Signature = sig(t, "safety/double-grant/acquire/*")
	sought.AlsoSignatures = []model.Signature{sig(t, "safety/watchdog-gave-up/*/*")}
	sought.KnownInFixed = []string{"kept", "later"}
	kept.Signature = sig(t, "safety/double-grant/acquire/none") // no since: there before the fix too
	kept.Buggy, kept.Fixed = "2.0.0", "2.0.1"
	later.Signature = sig(t, "safety/watchdog-gave-up/*/*") // came with the fix
	later.Since, later.Buggy, later.Fixed = "1.0.1", "2.0.0", "2.0.1"
	gone.Signature = sig(t, "safety/double-grant/acquire/*") // fixed with sought: the fixed release cannot show it
	all := []Bug{sought, kept, later, gone}
	ids := func(bs []Bug) (out []string) {
		for _, b := range bs {
			out = append(out, b.ID)
		}
		return out
	}
	fixed, buggy := sharedAt(all, sought, SideFixed), sharedAt(all, sought, SideBuggy)
	if got := ids(fixed); !slices.Equal(got, []string{"kept", "later"}) {
		t.Errorf("fixed side: %v, want kept and later", got)
	}
	if got := ids(buggy); !slices.Equal(got, []string{"kept"}) {
		t.Errorf("buggy side: %v, want kept only (later came with the fix, gone went with it)", got)
	}
	sigs := func(texts ...string) (out []model.Signature) {
		for _, s := range texts {
			out = append(out, sig(t, s))
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		sigs         []model.Signature
		buggy, fixed bool
	}{
		{"a double grant no shared bug explains", sigs("safety/double-grant/acquire/beyond:client-stall"), true, true},
		{"a double grant without a fault: kept's too", sigs("safety/double-grant/acquire/none"), false, false},
		{"the watchdog's: later's on the fixed release only", sigs("safety/watchdog-gave-up/acquire/none"), true, false},
		{"one signature beyond doubt is enough", sigs("safety/double-grant/acquire/none", "safety/double-grant/acquire/beyond:hiccup"), true, true},
		{"not the bug's at all", sigs("refusal/refused-free/acquire/none"), false, false},
		{"a double grant during a fault the checker judged, beside kept's", sigs("safety/double-grant/acquire/during:reconnect", "safety/double-grant/acquire/none"), false, false},
		{"during a fault, beside the watchdog's", sigs("safety/double-grant/acquire/during:reconnect", "safety/watchdog-gave-up/acquire/beyond:reconnect"), true, false},
		{"during a fault, alone", sigs("safety/double-grant/acquire/during:reconnect"), true, true},
	} {
		if got := claims(sought, buggy, tc.sigs); got != tc.buggy {
			t.Errorf("%s: claimed on the buggy release %v, want %v", tc.name, got, tc.buggy)
		}
		if got := claims(sought, fixed, tc.sigs); got != tc.fixed {
			t.Errorf("%s: claimed on the fixed release %v, want %v", tc.name, got, tc.fixed)
		}
	}
}
