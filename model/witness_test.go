package model

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// An order orderWitness accepts is one porcupine accepts: on generated
// histories, valid and perturbed, a segment it calls linearizable is.
func TestOrderWitnessImpliesLinearizable(t *testing.T) {
	diffChecks(t, 500)
	witnessed, segs := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 80, maxLocks: 2, perturb: rapid.Bool().Draw(t, "perturb")})
		for _, seg := range segments(h, opts) {
			segs++
			if !orderWitness(seg.ops) {
				continue
			}
			witnessed++
			if !porcupine.CheckOperations(mutexModel, seg.ops) {
				t.Fatalf("a witnessed segment of %d ops is not linearizable:\n%s", len(seg.ops), dumpHistory(h))
			}
		}
	})
	t.Logf("%d of %d segments witnessed without porcupine", witnessed, segs)
}

// Counts that contradict each other make a segment illegal, and the
// prefix up to where they do is illegal already: on generated histories,
// valid and perturbed, porcupine agrees.
func TestCountsContradictImpliesIllegal(t *testing.T) {
	diffChecks(t, 500)
	found, illegal := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 80, maxLocks: 2, perturb: true})
		for _, seg := range segments(h, opts) {
			legal := porcupine.CheckOperations(mutexModel, seg.ops)
			if !legal {
				illegal++
			}
			at, bad := countsContradict(seg.ops)
			if !bad {
				continue
			}
			found++
			if legal || porcupine.CheckOperations(mutexModel, seg.ops[:at]) {
				t.Fatalf("counts contradict before op %d of %d, but porcupine finds the segment (legal %v) or that prefix linearizable:\n%s", at, len(seg.ops), legal, dumpHistory(h))
			}
		}
	})
	t.Logf("%d of %d illegal segments found by their counts", found, illegal)
}
