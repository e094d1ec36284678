package scenario

import (
	"slices"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Every catalog scenario has its own fault class entry, one of the known
// classes: a scenario added without one fails here rather than landing in
// "other" on the scoreboard.
func TestEveryScenarioHasAFaultClass(t *testing.T) {
	for _, sc := range Catalog() {
		c, ok := faultClasses[sc.Name]
		if !ok {
			t.Errorf("%s: no entry in faultClasses (guessed %q)", sc.Name, FaultClass(sc.Name))
			continue
		}
		if !slices.Contains(FaultClasses(), c) || c == FaultOther {
			t.Errorf("%s: fault class %q", sc.Name, c)
		}
	}
	if got := FaultClass("partition-very-long"); got != FaultNetwork {
		t.Errorf("a new partition scenario is classed %q", got)
	}
	if got := FaultClass("something-new"); got != FaultOther {
		t.Errorf("an unknown scenario is classed %q", got)
	}
}

// Tolerated: what an expectation accepts as Invalid.
func TestTolerated(t *testing.T) {
	ran := []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckFencing, model.CheckFairness, model.CheckLiveness, model.CheckContract}
	peer := subject.Subject{Name: "p", Kind: subject.KindPeer}
	stall, _ := Lookup("client-stall")
	fenced := OwnedBy(ExpectFencesHeld, DefaultOwners, peer)
	restart, _ := Lookup("restart-no-persistence")
	tokens := subject.Subject{Name: "t", Kind: subject.KindExternal, Fenced: true}
	for _, tc := range []struct {
		name string
		e    Expect
		safe bool
		want []string
	}{
		{"safe valid", ExpectValid, true, nil},
		{"safe mutant", ExpectAny, true, nil},
		{"unsafe measured", Expect{Label: "measured"}, false, ran},
		{"unsafe default", stall.Expectation(peer), false, []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckContract}},
		{"fences held", fenced, false, []string{model.CheckLinearizable, model.CheckContract}},
		{"restart forgets the fencing counter", restart.Expectation(tokens), false, []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckFencing, model.CheckContract}},
		{"unsafe, valid required (WAIT)", Expect{Label: "valid", Verdict: model.Valid}, false, nil},
		{"liveness only", Expect{Label: "safe (liveness only)", Checkers: map[string]model.Verdict{
			model.CheckLinearizable: model.Valid, model.CheckMutualExclusion: model.Valid}}, true,
			[]string{model.CheckFencing, model.CheckFairness, model.CheckLiveness, model.CheckContract}},
		{"skipped", Expect{Skip: "topology"}, false, nil},
	} {
		if got := tc.e.Tolerated(ran, tc.safe); !slices.Equal(got, tc.want) {
			t.Errorf("%s: tolerated %v, want %v", tc.name, got, tc.want)
		}
	}
}
