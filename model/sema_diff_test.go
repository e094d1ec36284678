package model

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// Differential tests of the semaphore checkers: segmenting at quiet
// points changes no verdict of porcupine's on each object's unsplit
// history, a correct semaphore's histories are valid under every checker,
// and small histories get the brute-force search's verdict
// (sema_brute_test.go).

// semWholeVerdict checks each object's ops as one segment from the unset
// state.
func semWholeVerdict(h *History) Verdict {
	names, by := objectOps(h)
	v := Valid
	for _, name := range names {
		seg := semSegment{name: name, init: semSet{{}}, ops: by[name]}
		switch porcupine.CheckOperationsTimeout(semModel(seg.init), semOperations(h, seg), diffTimeout) {
		case porcupine.Illegal:
			return Invalid
		case porcupine.Unknown:
			v = Unknown
		}
	}
	return v
}

func checkSemSplitEqualsWhole(t *rapid.T, h *History) Verdict {
	split := CheckSemLinearizable(h, Options{Timeout: diffTimeout})
	whole := semWholeVerdict(h)
	if split.Verdict == Unknown || whole == Unknown {
		t.Fatalf("undecided on a small history (split %s, whole %s):\n%s", split.Verdict, whole, dumpHistory(h))
	}
	if split.Verdict != whole {
		t.Fatalf("split says %s, unsplit says %s: %s\n%s", split.Verdict, whole, split.Explanation, dumpHistory(h))
	}
	return whole
}

// A correct semaphore's histories are valid under every checker, split or
// not.
func TestSemGroundTruthIsValid(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h := genSemHistory(t, semGenConfig{steps: 60, objects: 2})
		if v := checkSemSplitEqualsWhole(t, h); v != Valid {
			t.Fatalf("a correct semaphore's history judged %s:\n%s", v, dumpHistory(h))
		}
		if err := h.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, res := range Check(h, Options{Timeout: diffTimeout}).Results {
			if res.Verdict == Invalid || (res.Verdict == Unknown && granted(h)) {
				t.Fatalf("a correct semaphore's history judged %s:\n%s\n%s", res.Verdict, res, dumpHistory(h))
			}
		}
	})
}

// On perturbed (mostly invalid) histories, segmenting changes no verdict.
func TestSemSplitEqualsWhole(t *testing.T) {
	diffChecks(t, 500)
	invalid := 0
	rapid.Check(t, func(t *rapid.T) {
		if checkSemSplitEqualsWhole(t, genSemHistory(t, semGenConfig{steps: 40, objects: 2, perturb: true})) == Invalid {
			invalid++
		}
	})
	t.Logf("%d invalid histories among those checked", invalid)
	if invalid == 0 {
		t.Fatal("no perturbed history was invalid: the test exercises nothing")
	}
}
