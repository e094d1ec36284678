package model

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// Differential tests of the linearizability checker (issue 18, item 8):
// the verdict with segmenting equals porcupine's on each lock's unsplit
// history, and histories of a correct lock (the generator's ground truth)
// are never called invalid. Budgets: diffChecks cases each in `go test`;
// $LOCKCHECK_DIFF_CHECKS for longer runs (make checker-soak).

// diffTimeout bounds one porcupine call; generated histories are small, so
// running out means something is wrong and the case is reported.
const diffTimeout = 20 * time.Second

// diffChecks sets how many cases rapid draws in this test: n, or
// $LOCKCHECK_DIFF_CHECKS when set. An explicit -rapid.checks wins.
func diffChecks(t *testing.T, n int) {
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "rapid.checks" })
	if explicit {
		return
	}
	if v := os.Getenv("LOCKCHECK_DIFF_CHECKS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("LOCKCHECK_DIFF_CHECKS=%q: want a positive number", v)
		}
	}
	f := flag.Lookup("rapid.checks")
	old := f.Value.String()
	if err := f.Value.Set(strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

func durNs(ns int64) time.Duration { return time.Duration(ns) }

// dumpHistory renders h as JSON Lines, ready to become a regression case.
func dumpHistory(h *History) string {
	var b bytes.Buffer
	if err := WriteHistory(&b, h); err != nil {
		return fmt.Sprintf("(cannot render: %v)", err)
	}
	return b.String()
}

// wholeOps returns, per lock, the inputs segmentsOf builds for porcupine
// (the same stepInputs, synthetic retirements and contended flags) as one
// sequence: the lock's history unsplit, without the synthetic ops that set
// a segment's starting state.
func wholeOps(h *History, opts Options) map[string][]porcupine.Operation {
	opts.MaxSegmentOps = -1
	ix := indexLocks(h)
	out := map[string][]porcupine.Operation{}
	for _, l := range ix.locks {
		var ops []porcupine.Operation
		ix.segmentsOf(h, l, opts, func(s segment) bool {
			for _, op := range s.ops {
				if op.Input.(*stepInput).init == nil {
					ops = append(ops, op)
				}
			}
			return true
		})
		out[l] = ops
	}
	return out
}

// wholeVerdict is porcupine's verdict on every lock's unsplit history:
// Invalid when some lock is illegal, Unknown when none is and some lock
// was not decided in time.
func wholeVerdict(h *History, opts Options) (Verdict, map[string]porcupine.CheckResult) {
	per := map[string]porcupine.CheckResult{}
	v := Valid
	for l, ops := range wholeOps(h, opts) {
		r := porcupine.CheckOperationsTimeout(mutexModel, ops, diffTimeout)
		per[l] = r
		switch {
		case r == porcupine.Illegal:
			v = Invalid
		case r == porcupine.Unknown && v == Valid:
			v = Unknown
		}
	}
	return v, per
}

// checkSplitEqualsWhole fails t when the segmented verdict differs from
// the unsplit one; it returns the (agreed) verdict.
func checkSplitEqualsWhole(t interface {
	Helper()
	Fatalf(string, ...any)
}, h *History, opts Options) Verdict {
	t.Helper()
	opts.Timeout = diffTimeout
	split := CheckLinearizability(h, opts)
	whole, per := wholeVerdict(h, opts)
	if split.Verdict == Unknown || whole == Unknown {
		t.Fatalf("undecided within %s (split %s, whole %v) on a small history:\n%s", diffTimeout, split.Verdict, per, dumpHistory(h))
	}
	if split.Verdict != whole {
		t.Fatalf("split says %s, unsplit porcupine says %s (per lock %v), options %+v\nsplit: %s %v\nhistory:\n%s",
			split.Verdict, whole, per, opts, split.Explanation, split.Examples, dumpHistory(h))
	}
	return whole
}

// A correct lock's histories are never called invalid, and the segmented
// verdict equals the unsplit one.
func TestGroundTruthHistoriesAreValid(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 80, maxLocks: 2})
		if v := checkSplitEqualsWhole(t, h, opts); v != Valid {
			t.Fatalf("a correct lock's history judged %s, options %+v:\n%s\n%s", v, opts,
				CheckLinearizability(h, opts), dumpHistory(h))
		}
	})
}

// On histories perturbed into (mostly) invalid ones, segmenting changes no
// verdict.
func TestSplitEqualsWhole(t *testing.T) {
	diffChecks(t, 500)
	invalid := 0
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 80, maxLocks: 2, perturb: true})
		if checkSplitEqualsWhole(t, h, opts) == Invalid {
			invalid++
		}
	})
	t.Logf("%d invalid histories among those checked", invalid)
}
