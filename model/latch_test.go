package model

import (
	"testing"

	"pgregory.net/rapid"
)

// genLatchHistory draws a correct latch's history (as genSemHistory does):
// sets, countdowns and awaits applied at increasing instants.
func genLatchHistory(t *rapid.T, maxOps int, perturb bool) *History {
	h := &History{Header: Header{Version: FormatVersion}}
	state := latchState{}
	var free []int64
	retired := map[int]bool{}
	nops := rapid.IntRange(1, maxOps).Draw(t, "ops")
	for k := range nops {
		at := int64(k+1) * 100
		p := rapid.IntRange(0, 4).Draw(t, "proc")
		for len(free) <= p {
			free = append(free, 0)
		}
		if retired[p] || free[p] >= at-1 {
			p = len(free)
			free = append(free, 0)
		}
		o := Op{Process: p, Lock: "l", Kind: rapid.SampledFrom([]Kind{LatchSet, LatchCountDown, LatchCountDown, LatchAwait, LatchAwait}).Draw(t, "kind")}
		o.Call = max(free[p]+1, at-rapid.Int64Range(0, 150).Draw(t, "before"))
		o.Return = at + rapid.Int64Range(0, 150).Draw(t, "after")
		o.Wait = 10
		if o.Kind == LatchSet {
			o.N = rapid.Int64Range(1, 3).Draw(t, "n")
		}
		next := latchStep(state, semInput{kind: o.Kind, n: o.N, outcome: OK})
		o.Outcome = Fail
		info := rapid.IntRange(0, 14).Draw(t, "info") == 0
		if len(next) == 1 && (!info || rapid.Bool().Draw(t, "effect")) {
			state, o.Outcome = next[0], OK
		}
		if info {
			o.Outcome = Info
			retired[p] = true
		}
		if perturb && rapid.IntRange(0, 7).Draw(t, "perturb") == 0 && o.Outcome != Info {
			o.Outcome = map[Outcome]Outcome{OK: Fail, Fail: OK}[o.Outcome]
		}
		free[p] = o.Return
		h.Ops = append(h.Ops, o)
	}
	return h
}

// bruteLatchLegal searches every real-time order of h's ops for one in
// which each outcome is the reply of the latch's scripts, restated here
// from latch_*.lua and Redisson's await (getCount == 0).
func bruteLatchLegal(h *History) bool {
	type key struct {
		exists bool
		value  int64
	}
	n := len(h.Ops)
	var try func(done uint32, k key) bool
	try = func(done uint32, k key) bool {
		if done == 1<<n-1 {
			return true
		}
		for a := range n {
			if done&(1<<a) != 0 || !semMayGoNext(h, allOps(n), done, a) {
				continue
			}
			o := &h.Ops[a]
			next, replied := k, true
			switch o.Kind {
			case LatchSet: // SET only if EXISTS == 0
				replied = !k.exists
				if replied {
					next = key{true, o.N}
				}
			case LatchCountDown: // DECR, DEL at <= 0
				v := k.value - 1
				next = key{v > 0, max(v, 0)}
			case LatchAwait: // GET (missing: 0) == 0
				replied = !k.exists || k.value == 0
			}
			var ok bool
			switch o.Outcome {
			case OK:
				ok = replied && try(done|1<<a, next)
			case Fail:
				ok = (o.Kind == LatchCountDown || !replied) && try(done|1<<a, k)
			default:
				ok = try(done|1<<a, k) || try(done|1<<a, next)
			}
			if ok {
				return true
			}
		}
		return false
	}
	return try(0, key{})
}

// The latch model agrees with the brute force, split or not, and a correct
// latch's histories are valid under every checker.
func TestLatchDifferential(t *testing.T) {
	diffChecks(t, 500)
	invalid := 0
	rapid.Check(t, func(t *rapid.T) {
		perturb := rapid.Bool().Draw(t, "perturbed")
		h := genLatchHistory(t, 8, perturb)
		want := Valid
		if !bruteLatchLegal(h) {
			want = Invalid
			invalid++
		}
		if got := CheckSemLinearizable(h, Options{Timeout: diffTimeout}); got.Verdict != want {
			t.Fatalf("model says %s, brute force %s: %s\n%s", got.Verdict, want, got.Explanation, dumpHistory(h))
		}
		if !perturb {
			for _, res := range Check(h, Options{Timeout: diffTimeout}).Results {
				if res.Verdict == Invalid {
					t.Fatalf("a correct latch judged invalid: %s\n%s", res, dumpHistory(h))
				}
			}
		}
	})
	if invalid == 0 {
		t.Fatal("no invalid history drawn")
	}
}

// An await that sat on an open latch fails liveness; one that returned
// true while the count was surely above 0 is not linearizable.
func TestLatchCaught(t *testing.T) {
	const s = int64(1e9)
	op := func(p int, k Kind, n, call, ret int64, out Outcome) Op {
		return Op{Process: p, Lock: "l", Kind: k, N: n, Call: call, Return: ret, Outcome: out, Wait: 5 * s}
	}
	h := &History{Ops: []Op{
		op(0, LatchSet, 1, 0, 10, OK),
		op(1, LatchAwait, 0, 20, 5*s, Fail),
		op(0, LatchCountDown, 0, s, s+10, OK),
	}}
	if r := CheckPermitsLive(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("liveness: %s", r)
	}
	h = &History{Ops: []Op{
		op(0, LatchSet, 2, 0, 10, OK),
		op(0, LatchCountDown, 0, 20, 30, OK),
		op(1, LatchAwait, 0, 40, 50, OK),
	}}
	if r := CheckSemLinearizable(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("early open: %s", r)
	}
}
