package model

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// Differential tests of the permit semaphore's model. The model reasons on
// lease windows (an op's instant is only known to lie within its call and
// deadline), so it is an over-approximation of the concrete semantics: it
// must accept every history the concrete search accepts (never a false
// alarm), and split and whole must agree.

// brutePermitLegal searches orders of h's ops and integer instants within
// each op's [call, deadline], non-decreasing along the order, under the
// concrete semantics (permitTruth.apply).
func brutePermitLegal(h *History) bool {
	n := len(h.Ops)
	type visit struct {
		done uint32
		t    int64
		key  string
	}
	seen := map[visit]bool{}
	var try func(done uint32, t int64, p permitTruth) bool
	try = func(done uint32, t int64, p permitTruth) bool {
		if done == 1<<n-1 {
			return true
		}
		k := visit{done, t, permitTruthKey(p)}
		if seen[k] {
			return false
		}
		seen[k] = true
		for a := range n {
			o := &h.Ops[a]
			if done&(1<<a) != 0 || !semMayGoNext(h, allOps(n), done, a) {
				continue
			}
			for at := max(t, o.Call); at <= o.effectiveDeadline(); at++ {
				next, replied := p.apply(o, at)
				switch o.Outcome {
				case OK:
					if replied && try(done|1<<a, at, next) {
						return true
					}
				case Fail:
					// a refused acquire still returned an expired permit, a
					// refused release of an expired one returned it; a
					// failed add did nothing; a cancelled acquire may not
					// have run at all
					if o.Kind == SemAdd || o.Cancelled {
						if try(done|1<<a, at, p) {
							return true
						}
					}
					if o.Kind != SemAdd && !replied && try(done|1<<a, at, next) {
						return true
					}
				default:
					if try(done|1<<a, at, p) || (replied && try(done|1<<a, at, next)) {
						return true
					}
				}
			}
		}
		return false
	}
	return try(0, 0, permitTruth{ends: map[string]int64{}})
}

func permitTruthKey(p permitTruth) string {
	s := permitState{set: p.set, avail: p.avail}
	for id, end := range p.ends {
		s.held = append(s.held, permitHeld{id: id, lo: end, hi: end})
	}
	return s.with(s.held).key()
}

func allOps(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func permitWhole(h *History) porcupine.CheckResult {
	seg := permitSegment{init: permitSet{{}}, ops: allOps(len(h.Ops))}
	return porcupine.CheckOperationsTimeout(permitModel(seg.init), permitObjSegment(h, "ps", seg, "", 0).pops, diffTimeout)
}

// A correct permit semaphore's histories are valid under every checker.
func TestPermitGroundTruthIsValid(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h := genPermitHistory(t, 24, false)
		for _, res := range Check(h, Options{Timeout: diffTimeout, PermitGranularity: -1}).Results {
			if res.Verdict == Invalid {
				t.Fatalf("a correct permit semaphore's history judged invalid:\n%s\n%s", res, dumpHistory(h))
			}
		}
		if permitWhole(h) != porcupine.Ok {
			t.Fatalf("unsplit porcupine rejects a correct history:\n%s", dumpHistory(h))
		}
	})
}

// Segmenting changes no verdict, and the model accepts whatever the
// concrete search accepts.
func TestPermitSplitAndBrute(t *testing.T) {
	diffChecks(t, 500)
	invalid := 0
	rapid.Check(t, func(t *rapid.T) {
		h := genPermitHistory(t, 7, true)
		split := CheckSemLinearizable(h, Options{Timeout: diffTimeout, PermitGranularity: -1}).Verdict
		whole := Valid
		if permitWhole(h) != porcupine.Ok {
			whole = Invalid
		}
		if split != whole {
			t.Fatalf("split says %s, whole %s:\n%s", split, whole, dumpHistory(h))
		}
		if split == Invalid {
			invalid++
			if brutePermitLegal(h) {
				t.Fatalf("the model rejects a history the concrete search accepts:\n%s", dumpHistory(h))
			}
		}
	})
	if invalid == 0 {
		t.Fatal("no invalid history drawn: the test exercises nothing")
	}
}

// The contract checker needs no search, and it is never stricter than the
// model: a release it flags (ok after its permit's lease surely ended) no
// order of the model admits either. Its false positives are ruled out by
// TestPermitGroundTruthIsValid, which runs every checker.
func TestPermitContractImpliesNotLinearizable(t *testing.T) {
	diffChecks(t, 500)
	flagged := 0
	// Flagged histories are rare among those drawn: a few rounds (each of
	// rapid's checks, fewer under -short) until one is drawn.
	for round := 0; round < 5 && flagged == 0 && !t.Failed(); round++ {
		rapid.Check(t, func(t *rapid.T) {
			h := genPermitHistory(t, 12, true)
			opts := Options{Timeout: diffTimeout, PermitGranularity: -1}
			if CheckPermitsContract(h, opts).Verdict != Invalid {
				return
			}
			flagged++
			if v := CheckSemLinearizable(h, opts).Verdict; v != Invalid {
				t.Fatalf("contract flags a release the model admits (%s):\n%s", v, dumpHistory(h))
			}
		})
	}
	if flagged == 0 {
		t.Fatal("no history drawn that the contract checker flags: the test exercises nothing")
	}
	t.Logf("%d histories flagged", flagged)
}
