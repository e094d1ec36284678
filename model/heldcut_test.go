package model

import (
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// Differential tests of the two shortcuts that keep a long run's check
// linear (issue 33): heldCut, a cut where a live process holds however
// long a retired hold may last, and greedyWitness, a linearization built
// without search. With them the verdict must equal porcupine's on each
// lock's unsplit history (the whole-segment check they replace), on
// generated histories, valid and invalid. Each test counts how often its
// shortcut fired and fails when a full run never exercised it.

// exercised fails t when a shortcut never fired in a run of at least 100
// cases (a shorter run, -rapid.checks=10, proves too little to require it).
func exercised(t *testing.T, cases, fired int, what string) {
	t.Helper()
	t.Logf("%s: %d in %d cases", what, fired, cases)
	if cases >= 100 && fired == 0 {
		t.Fatalf("%s never happened in %d cases: the test exercises nothing new", what, cases)
	}
}

// genMutexOrRW draws a history of a mutex (3 in 4) or of a read-write
// lock, valid or perturbed, and the options to check it with.
func genMutexOrRW(rt *rapid.T) (*History, Options) {
	if rapid.IntRange(0, 3).Draw(rt, "rw") == 0 {
		h, opts, _ := genRWHistory(rt, 80, 2, rapid.Bool().Draw(rt, "perturb"))
		return h, opts
	}
	h, opts, _ := genHistory(rt, genConfig{maxSteps: 80, maxLocks: 2, perturb: rapid.Bool().Draw(rt, "perturb")})
	return h, opts
}

// segmentsAndWholes lists the ops of each segment of h and of each lock's
// unsplit history.
func segmentsAndWholes(h *History, opts Options) [][]porcupine.Operation {
	var all [][]porcupine.Operation
	for _, seg := range segments(h, opts) {
		all = append(all, seg.ops)
	}
	for _, ops := range wholeOps(h, opts) {
		all = append(all, ops)
	}
	return all
}

// retiredCuts counts the segment boundaries of h that the rule before
// heldCut would not have made: a retired hold could still last at the
// first op after the cut. It replays each lock's ops as split does.
func retiredCuts(h *History, opts Options) int {
	n := 0
	ix := indexLocks(h)
	for _, l := range ix.locks {
		var b cutter = newBalances()
		if ix.rw[l] {
			b = newRWBalances()
		}
		var retiredUntil int64
		first := true
		ix.segmentsOf(h, l, opts, func(s segment) bool {
			start := !first // the segment's first recorded op follows a cut
			for _, op := range s.ops {
				in := op.Input.(*stepInput)
				if in.init != nil {
					continue
				}
				if start && retiredUntil >= in.call {
					n++
				}
				start = false
				if until, retired := b.apply(in); retired {
					retiredUntil = max(retiredUntil, until)
				}
			}
			first = false
			return true
		})
	}
	return n
}

// Cutting where a live process holds changes no verdict, and neither
// does greedyWitness: on generated mutex and read-write histories, valid
// and perturbed (many perturbed ones invalid), and on histories shaped
// like a contended run's (simulate: blocking waiters, reentry, refused
// TryLocks, 0-10% info ops whose holds outlive the run), valid and with
// a double grant injected, the segmented verdict equals the unsplit one
// (and, for the simulated ones, the one expected). The new cuts are
// made, and greedyWitness decides segments that orderWitness does not.
func TestHeldCutSplitEqualsWhole(t *testing.T) {
	diffChecks(t, 500)
	cases, cuts, greedy, invalid := 0, 0, 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		var h *History
		var opts Options
		want := Unknown // whatever the unsplit check says
		if rapid.Bool().Draw(rt, "simulated") {
			h, want = genSimulated(rt)
		} else {
			h, opts = genMutexOrRW(rt)
		}
		cases++
		cuts += retiredCuts(h, opts)
		for _, seg := range segments(h, opts) {
			if !orderWitness(seg.ops) && greedyWitness(seg.ops) {
				greedy++
			}
		}
		v := checkSplitEqualsWhole(rt, h, opts)
		if want != Unknown && v != want {
			rt.Fatalf("verdict %s, want %s:\n%s", v, want, dumpHistory(h))
		}
		if v == Invalid {
			invalid++
		}
	})
	exercised(t, cases, cuts, "cuts made while a retired hold could last")
	exercised(t, cases, greedy, "segments only greedyWitness decided")
	exercised(t, cases, invalid, "invalid histories")
}

// genSimulated draws a small simulated history (simulate, from a drawn
// seed), with a double grant injected or not, and its verdict.
func genSimulated(rt *rapid.T) (*History, Verdict) {
	r := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 33))
	h, ws := simulate(r, simConfig{
		locks:    rapid.IntRange(1, 2).Draw(rt, "locks"),
		procs:    rapid.IntRange(2, 8).Draw(rt, "procs"),
		ops:      rapid.IntRange(20, 300).Draw(rt, "ops"),
		infoRate: rapid.SampledFrom([]float64{0, 0.02, 0.1}).Draw(rt, "infoRate"),
	})
	if !rapid.Bool().Draw(rt, "doubleGrant") {
		return h, Valid
	}
	if bad, ok := injectDoubleGrant(r, h, ws); ok {
		return bad, Invalid
	}
	return h, Valid
}

// An order greedyWitness builds is one porcupine accepts: on generated
// mutex and read-write histories, valid and perturbed, every segment and
// every lock's unsplit history it calls linearizable is.
func TestGreedyWitnessImpliesLinearizable(t *testing.T) {
	diffChecks(t, 500)
	cases, witnessed, beyondOrder := 0, 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		h, opts := genMutexOrRW(rt)
		cases++
		for _, ops := range segmentsAndWholes(h, opts) {
			if !greedyWitness(ops) {
				continue
			}
			witnessed++
			if !orderWitness(ops) {
				beyondOrder++
			}
			if !porcupine.CheckOperations(mutexModel, ops) {
				rt.Fatalf("greedyWitness calls %d ops linearizable, porcupine does not:\n%s", len(ops), dumpHistory(h))
			}
		}
	})
	exercised(t, cases, witnessed, "histories greedyWitness decided")
	exercised(t, cases, beyondOrder, "histories greedyWitness decided and orderWitness did not")
}

// FuzzGreedyWitness decodes bytes into a small history of any shape
// (decodeHistory) and checks that greedyWitness calls linearizable only
// what porcupine does, on each lock's unsplit ops and on each segment,
// that shortcut (the witnesses and the counts, which the explanation's
// searches use) agrees with porcupine on each of them less one op, and
// that the segmented verdict (heldCut's cuts included) is the unsplit
// one. `go test` runs the seeds;
//
//	go test -run '^$' -fuzz '^FuzzGreedyWitness$' -fuzztime 1m ./model/
//
// searches further.
func FuzzGreedyWitness(f *testing.F) {
	for _, seed := range [][]byte{
		{0x00},
		// watchdog 5000: p0's acquire is unknown (a retired hold until
		// ~5000); p1 acquires and, quiet, releases (a cut while it holds);
		// p2 then fails on a free lock: invalid.
		{0x04, 0x20, 0x08, 0x02, 0x00, 0x01, 0x20, 0x01, 0x00, 0x05, 0x20, 0x01, 0x00, 0x12, 0x20, 0x01, 0x00},
		// as above, but p2's TryLock fails while p1 holds: valid.
		{0x04, 0x20, 0x08, 0x02, 0x00, 0x01, 0x20, 0x01, 0x00, 0x12, 0x10, 0x01, 0x00, 0x05, 0x20, 0x01, 0x00},
		// two processes acquire at once; one fails; an unknown release.
		{0x01, 0x80, 0x00, 0x10, 0x00, 0x11, 0x08, 0x05, 0x00, 0x24, 0x10, 0x81, 0x30},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, opts := decodeHistory(data)
		if err := h.Validate(); err != nil {
			t.Skip(err)
		}
		for _, ops := range segmentsAndWholes(h, opts) {
			if greedyWitness(ops) && !porcupine.CheckOperations(mutexModel, ops) {
				t.Fatalf("greedyWitness calls %d ops linearizable, porcupine does not:\n%s", len(ops), dumpHistory(h))
			}
			// The explanation's searches ask about the ops less one.
			for i := range ops {
				rest := append(append([]porcupine.Operation(nil), ops[:i]...), ops[i+1:]...)
				if v, ok := shortcut(rest); ok && (v == porcupine.Ok) != porcupine.CheckOperations(mutexModel, rest) {
					t.Fatalf("shortcut says %v for %d ops less op %d, porcupine disagrees:\n%s", v, len(ops), i, dumpHistory(h))
				}
			}
		}
		checkSplitEqualsWhole(t, h, opts)
	})
}
