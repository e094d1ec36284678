package model

import (
	"strings"
	"testing"
)

// After a restart without persistence a semaphore's permits are whatever
// the restart left: a grant beyond the total is allowed by that fault, and
// by no other. The lossy fault leaves the object it overlaps unjudged (said
// in the explanation), and only that object: another one outside the
// window is still judged.
func TestSemLossyFaultLeavesObjectUnjudged(t *testing.T) {
	broken := []Op{ // two grants of the one permit, no release between
		semOp(0, SemSet, 1, 0, 10, OK),
		semOp(1, SemAcquire, 1, 20, 30, OK),
		semOp(2, SemAcquire, 1, 60, 70, OK),
	}
	other := make([]Op, len(broken))
	for i, o := range broken {
		o.Lock, o.Call, o.Return = "t", o.Call+1000, o.Return+1000
		other[i] = o
	}
	restart := Fault{Name: "redis-restart-empty", Start: 40, End: 45}
	kill := Fault{Name: "redis-kill", Start: 40, End: 45}
	for _, c := range []struct {
		name   string
		ops    []Op
		faults []Fault
		opts   Options
		want   Verdict
	}{
		{"no fault", broken, nil, Options{}, Invalid},
		{"restart without persistence", broken, []Fault{restart}, Options{}, Valid},
		{"kill with appendfsync always", broken, []Fault{kill}, Options{LossyFaults: []string{}}, Invalid},
		{"a pause", broken, []Fault{{Name: "redis-pause", Start: 40, End: 45}}, Options{}, Invalid},
		{"restart, another object broken after it", append(append([]Op(nil), broken...), other...), []Fault{restart}, Options{}, Invalid},
	} {
		h := &History{Ops: c.ops, Faults: c.faults}
		for _, r := range []Result{CheckSemLinearizable(h, c.opts), CheckPermitsConserved(h, c.opts)} {
			if r.Verdict != c.want {
				t.Errorf("%s: %s %s, want %s", c.name, r.Checker, r, c.want)
			}
			forgotten := strings.Contains(r.Explanation, "not judged")
			if wantNote := len(c.faults) > 0 && c.faults[0].Name == "redis-restart-empty"; forgotten != wantNote {
				t.Errorf("%s: %s explanation %q: note of the unjudged object %v, want %v", c.name, r.Checker, r.Explanation, forgotten, wantNote)
			}
		}
	}
}
