package rediscover

import (
	"testing"

	"github.com/lockcheck/lockcheck/workloads/scenario"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// TestShrinkKeepsTheSoughtSignature: a find with the bug's signature
// shrinks only to draws that show it again (a double grant during the
// fault is no double grant beyond it), any other find to draws with its
// class and shape, and a hunt for no bug the same way.
func TestShrinkKeepsTheSoughtSignature(t *testing.T) {
	showing := func(sig string) hunt.Trial {
		return hunt.Trial{Find: true, Report: model.Report{Verdict: model.Invalid, Results: []model.Result{{
			Checker: model.CheckLinearizable, Verdict: model.Invalid, Examples: []model.Example{exampleFor(sig)}}}}}
	}
	bug := testBug("lib-1.0.0-lost-renewal")
	bug.Signature = sig(t, "safety/double-grant/acquire/beyond:*")
	beyond, during := showing("safety/double-grant/acquire/beyond:reconnect"), showing("safety/double-grant/acquire/none")
	refusal := showing("refusal/refused-free/acquire/none")
	for _, tc := range []struct {
		name        string
		w           sought
		first, cand hunt.Trial
		want        bool
	}{
		{"the bug's find, shown again", sought{bug: bug}, beyond, beyond, true},
		{"the bug's find, slipped to a grant within the fault", sought{bug: bug}, beyond, during, false},
		{"another find, its class and shape again", sought{bug: bug}, during, during, true},
		{"another find, slipped to a refusal", sought{bug: bug}, during, refusal, false},
		{"no bug sought", sought{}, beyond, during, true},
		{"no bug sought, slipped", sought{}, beyond, refusal, false},
	} {
		if got := tc.w.same(tc.first, tc.cand); got != tc.want {
			t.Errorf("%s: same = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestShrinksOnlyWhatEndsTheHunt: a hunt shrinks the sought bug's find
// (it ends the hunting), not another known bug's find, one no catalogued
// bug explains, nor one its fault allows (each only recorded while the
// hunt goes on).
func TestShrinksOnlyWhatEndsTheHunt(t *testing.T) {
	bug, other := testBug("lib-1.0.0-sought"), testBug("lib-1.0.0-other")
	bug.Signature = sig(t, "contract/hung/release/*")
	other.Signature = sig(t, "safety/double-grant/acquire/*")
	w := sought{bug: bug, known: []Bug{other}}
	plain := func(text string) hunt.Trial {
		return hunt.Trial{Find: true, Report: model.Report{Verdict: model.Invalid, Results: []model.Result{{
			Checker: model.CheckLinearizable, Verdict: model.Invalid, Examples: []model.Example{exampleFor(text)}}}}}
	}
	allowed := plain("safety/double-grant/acquire/none")
	sc := scenario.Scenario{Name: "client-stall"}
	allowed.Draw.Scenario = &sc
	allowed.Report.Results = append(allowed.Report.Results, model.Result{Checker: model.CheckAllowance, Verdict: model.Valid})
	for _, tc := range []struct {
		name string
		t    hunt.Trial
		want bool
	}{
		{"the sought bug", plain("contract/hung/release/none"), true},
		{"another catalogued bug of the release", plain("safety/double-grant/acquire/none"), false},
		{"no bug the catalog knows", plain("refusal/refused-free/acquire/none"), false},
		{"allowed by its fault", allowed, false},
	} {
		if got := w.shrinks(tc.t); got != tc.want {
			t.Errorf("%s: shrinks = %v, want %v", tc.name, got, tc.want)
		}
	}
}
