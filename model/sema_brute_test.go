package model

import (
	"testing"

	"pgregory.net/rapid"
)

// A brute-force search of small semaphore histories against a restatement
// of RSemaphore's semantics written from its Lua (semaphore_*.lua), not
// from semStep: every order of one object's ops consistent with real time
// is tried, info ops both with and without effect.

const semBruteMaxOps = 8

// bruteSem is the semaphore key: missing, or an integer.
type bruteSem struct {
	exists bool
	value  int64
}

// bruteApply runs op's script on k and reports its reply: for
// tryAcquire whether it took the permits, for trySetPermits whether it set
// them; release and addPermits always succeed.
func bruteApply(k bruteSem, o *Op) (bruteSem, bool) {
	switch o.Kind {
	case SemAcquire: // GET; if >= n then DECRBY
		if k.exists && k.value >= o.N {
			return bruteSem{true, k.value - o.N}, true
		}
		return k, false
	case SemRelease, SemAdd: // INCRBY (missing: 0)
		return bruteSem{true, k.value + o.N}, true
	case SemSet: // SET if missing
		if !k.exists {
			return bruteSem{true, o.N}, true
		}
		return k, false
	}
	return k, false
}

// bruteSemLegal searches for an order of ops (one object's) in which every
// outcome is what the script replied.
func bruteSemLegal(ops []*Op) bool {
	n := len(ops)
	var try func(done int, k bruteSem) bool
	try = func(done int, k bruteSem) bool {
		if done == 1<<n-1 {
			return true
		}
		for a := range n {
			if done&(1<<a) != 0 {
				continue
			}
			first := true // no undone op ended before a was called
			for b := range n {
				if b != a && done&(1<<b) == 0 && ops[b].effectiveDeadline() < ops[a].Call {
					first = false
				}
			}
			if !first {
				continue
			}
			o := ops[a]
			next, replied := bruteApply(k, o)
			switch o.Outcome {
			case OK:
				if replied && try(done|1<<a, next) {
					return true
				}
			case Fail:
				// a refusal with the permits there is legal only when the
				// caller cancelled; a failed release or add did nothing
				if (!replied || (o.Kind == SemAcquire && o.Cancelled) || o.Kind == SemRelease || o.Kind == SemAdd) && try(done|1<<a, k) {
					return true
				}
			default:
				if try(done|1<<a, k) || (replied && try(done|1<<a, next)) {
					return true
				}
			}
		}
		return false
	}
	return try(0, bruteSem{})
}

func TestSemBruteForceAgrees(t *testing.T) {
	diffChecks(t, 500)
	invalid := 0
	rapid.Check(t, func(t *rapid.T) {
		h := genSemHistory(t, semGenConfig{steps: semBruteMaxOps, objects: 1, perturb: rapid.Bool().Draw(t, "perturb")})
		ops := make([]*Op, len(h.Ops))
		for i := range h.Ops {
			ops[i] = &h.Ops[i]
		}
		want := Valid
		if !bruteSemLegal(ops) {
			want = Invalid
			invalid++
		}
		if got := CheckSemLinearizable(h, Options{Timeout: diffTimeout}); got.Verdict != want {
			t.Fatalf("checker says %s, brute force %s: %s\n%s", got.Verdict, want, got.Explanation, dumpHistory(h))
		}
	})
	if invalid == 0 {
		t.Fatal("no invalid history drawn: the test exercises nothing")
	}
}
