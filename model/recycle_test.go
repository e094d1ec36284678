package model

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// Reusing one lock's input arrays for the next (inputPool) changes no
// verdict and no explanation: a history of many locks, some with a double
// grant, is judged as each lock's own history is judged alone, example
// for example (the broken locks' segments keep their arrays, and are
// explained after every later lock has reused the others').
func TestRecycledInputsChangeNoVerdict(t *testing.T) {
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 33))
		h, ws := simulate(r, simConfig{locks: 24, procs: 6, ops: 24 * 300, infoRate: 0.05})
		for range 1 + r.IntN(4) {
			h, _ = injectDoubleGrant(r, h, ws)
		}
		opts := Options{Timeout: time.Minute, MaxExamples: 100}
		all := CheckLinearizability(h, opts)
		byLock := map[string]Example{}
		for _, ex := range all.Examples {
			byLock[ex.Lock] = ex
		}
		broken := 0
		for _, l := range indexLocks(h).locks {
			alone := &History{Header: h.Header}
			for _, o := range h.Ops {
				if o.Lock == l {
					alone.Ops = append(alone.Ops, o) // each simulated process works on one lock
				}
			}
			res := CheckLinearizability(alone, opts)
			ex, shown := byLock[l]
			switch {
			case res.Verdict == Invalid && (!shown || !reflect.DeepEqual(ex, res.Examples[0])):
				t.Fatalf("seed %d, %s: alone %+v, among all %+v (shown %v)", seed, l, res.Examples[0], ex, shown)
			case res.Verdict != Invalid && shown:
				t.Fatalf("seed %d, %s: %s alone, but explained among all: %+v", seed, l, res.Verdict, ex)
			case res.Verdict == Invalid:
				broken++
			}
		}
		if all.Count != broken || broken == 0 {
			t.Fatalf("seed %d: %d locks counted broken among all, %d alone", seed, all.Count, broken)
		}
	}
}
