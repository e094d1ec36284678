package model

import (
	"bytes"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Tests of the multilock expansion (members.go): the rules on hand-made
// ops, and differential tests in the pattern of diff_test.go and
// brute_test.go on generated histories in which some processes' ops on one
// lock are relabelled as multilock ops.

func TestExpandMembersRules(t *testing.T) {
	h := &History{Ops: []Op{
		{Process: 1, Lock: "L", Also: "L:m1,L:m2", Kind: Acquire, Call: 1, Return: 2, Outcome: OK},
		{Process: 1, Lock: "L", Also: "L:m1,L:m2", Kind: Section, Call: 3, Return: 4, Outcome: OK, Write: 1},
		{Process: 1, Lock: "L", Also: "L:m1,L:m2", Kind: Release, Call: 5, Return: 6, Outcome: Fail},
		{Process: 2, Lock: "L", Also: "L:m1,L:m2", Kind: Acquire, Call: 5, Return: 6, Outcome: Fail},
		{Process: 3, Lock: "L", Kind: Acquire, Call: 7, Return: 8, Outcome: OK},
	}}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	got := ExpandMembers(h)
	type row struct {
		p         int
		lock      string
		kind      Kind
		out       Outcome
		cancelled bool
	}
	want := []row{
		{1, "L", Acquire, OK, false}, {1, "L:m1", Acquire, OK, false}, {1, "L:m2", Acquire, OK, false},
		{1, "L", Section, OK, false},
		{1, "L", Expire, OK, false}, {1, "L:m1", Expire, OK, false}, {1, "L:m2", Expire, OK, false},
		{2, "L", Acquire, Fail, false}, {2, "L:m1", Acquire, Fail, true}, {2, "L:m2", Acquire, Fail, true},
		{3, "L", Acquire, OK, false},
	}
	if len(got.Ops) != len(want) {
		t.Fatalf("expanded to %d ops, want %d:\n%s", len(got.Ops), len(want), dumpHistory(got))
	}
	for i, w := range want {
		o := got.Ops[i]
		if (row{o.Process, o.Lock, o.Kind, o.Outcome, o.Cancelled}) != w || o.Also != "" {
			t.Errorf("op %d = %v (also %q), want %+v", i, o, o.Also, w)
		}
	}
	if h.Ops[2].Kind != Release || ExpandMembers(got) != got {
		t.Error("ExpandMembers changed its input, or expanded an expanded history again")
	}
	for _, bad := range []string{"L", "L:m1,L:m1", "L:m1,"} {
		b := &History{Ops: []Op{{Process: 1, Lock: "L", Also: bad, Kind: Acquire, Call: 1, Return: 2, Outcome: OK}}}
		if b.Validate() == nil {
			t.Errorf("also %q accepted", bad)
		}
	}
}

// A plain holder of a member and a multilock holder exclude each other:
// the multilock's grant while p1 holds member L:m1 is a violation on L:m1,
// though the multilock's first member L was free.
func TestExpandMembersExcludesPlainHolder(t *testing.T) {
	h := &History{Ops: []Op{
		{Process: 1, Lock: "L:m1", Kind: Acquire, Call: 0, Return: 1, Outcome: OK},
		{Process: 2, Lock: "L", Also: "L:m1", Kind: Acquire, Call: 2, Return: 3, Outcome: OK},
		{Process: 1, Lock: "L:m1", Kind: Release, Call: 4, Return: 5, Outcome: OK},
		{Process: 2, Lock: "L", Also: "L:m1", Kind: Release, Call: 6, Return: 7, Outcome: OK},
	}}
	r := CheckLinearizability(h, Options{Timeout: 5 * time.Second})
	if r.Verdict != Invalid {
		t.Fatalf("verdict %s, want invalid: %s", r.Verdict, r.Explanation)
	}
	h.Ops[1].Also, h.Ops[3].Also = "", ""
	if r := CheckLinearizability(h, Options{Timeout: 5 * time.Second}); r.Verdict != Valid {
		t.Fatalf("without also: %s, want valid: %s", r.Verdict, r.Explanation)
	}
}

// relabelMode says which locks a relabelled history's multilocks take.
type relabelMode int

const (
	relabelFresh   relabelMode = iota // members of their own: L0:m1, L0:m2
	relabelCollide                    // the other lock of the history, L1, which plain processes hold too
)

// relabel makes the ops on L0 of the processes drawn into multilock
// processes (Sections too) name also members per mode. It returns the
// processes chosen.
func relabel(t *rapid.T, h *History, mode relabelMode) map[int]bool {
	multi := map[int]bool{}
	for i := range h.Ops {
		p := h.Ops[i].Process
		if _, seen := multi[p]; !seen {
			multi[p] = rapid.Bool().Draw(t, "multilock")
		}
	}
	also := "L0:m1,L0:m2"
	if mode == relabelCollide {
		also = "L1"
	}
	for i := range h.Ops {
		if o := &h.Ops[i]; o.Lock == "L0" && multi[o.Process] {
			o.Also = also
		}
	}
	return multi
}

// genMultiHistory draws a history (genHistory), relabels it, and perturbs
// it when asked; the bool says whether it was perturbed.
func genMultiHistory(t *rapid.T, steps int, mode relabelMode, perturbIt bool) (*History, Options, bool) {
	locks := 1
	if mode == relabelCollide {
		locks = 2
	}
	h, opts, _ := genHistory(t, genConfig{maxSteps: steps, maxLocks: locks})
	relabel(t, h, mode)
	perturbed := false
	if perturbIt {
		for range rapid.IntRange(0, 2).Draw(t, "perturbations") {
			perturbed = perturb(t, h) || perturbed
		}
	}
	return h, opts, perturbed
}

// A correct lock whose holders are partly multilocks (taking L0 and
// members of their own) is never called invalid, and the expansion's
// segmented verdict equals the unsplit one.
func TestMembersGroundTruthValid(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genMultiHistory(t, 80, relabelFresh, false)
		if v := checkSplitEqualsWhole(t, ExpandMembers(h), opts); v != Valid {
			t.Fatalf("a correct multilock history judged %s:\n%s", v, dumpHistory(h))
		}
		opts.Timeout = diffTimeout
		if r := CheckLinearizability(h, opts); r.Verdict != Valid {
			t.Fatalf("CheckLinearizability says %s on a correct multilock history: %s\n%s", r.Verdict, r.Explanation, dumpHistory(h))
		}
	})
}

// On perturbed multilock histories, whether their members are their own
// or collide with plain holders of another lock, segmenting changes no
// verdict, and CheckLinearizability of the unexpanded history agrees.
func TestMembersSplitEqualsWhole(t *testing.T) {
	diffChecks(t, 500)
	invalid := 0
	rapid.Check(t, func(t *rapid.T) {
		mode := relabelMode(rapid.IntRange(0, 1).Draw(t, "mode"))
		h, opts, _ := genMultiHistory(t, 60, mode, true)
		v := checkSplitEqualsWhole(t, ExpandMembers(h), opts)
		opts.Timeout = diffTimeout
		if r := CheckLinearizability(h, opts); r.Verdict != v {
			t.Fatalf("CheckLinearizability says %s, the expansion checked whole says %s\n%s", r.Verdict, v, dumpHistory(h))
		}
		if v == Invalid {
			invalid++
		}
	})
	t.Logf("%d invalid histories among those checked", invalid)
}

// The expansion checked by porcupine agrees with the brute force on small
// multilock histories, valid, perturbed and colliding.
func TestMembersBruteForce(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		mode := relabelMode(rapid.IntRange(0, 1).Draw(t, "mode"))
		h, opts, perturbed := genMultiHistory(t, 9, mode, true)
		v, _ := checkBrute(t, ExpandMembers(h), opts)
		if mode == relabelFresh && !perturbed && v != Valid {
			t.Fatalf("a correct multilock history judged %s by the brute force:\n%s", v, dumpHistory(h))
		}
	})
}

// Relabelling holders of L0 as multilocks over members of their own
// changes no verdict, once their refused releases are read as Expire ops
// (a multilock's refused release released what it still held).
func TestMembersFreshChangeNoVerdict(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 60, maxLocks: 2, perturb: true})
		plain := &History{Ops: append([]Op(nil), h.Ops...)}
		multi := relabel(t, h, relabelFresh)
		opts.Timeout = diffTimeout
		sameVerdict(t, plain, h, multi, opts)
	})
}

// sameVerdict compares CheckLinearizability on plain and on relabelled,
// after reading the refused releases of the multilock processes (multi)
// on L0 in plain as Expire ops. Either verdict Unknown compares equal.
func sameVerdict(t interface{ Fatalf(string, ...any) }, plain, relabelled *History, multi map[int]bool, opts Options) {
	for i := range plain.Ops {
		if o := &plain.Ops[i]; o.Lock == "L0" && multi[o.Process] && o.Kind == Release && o.Outcome == Fail {
			o.Kind, o.Outcome = Expire, OK
		}
	}
	a, b := CheckLinearizability(plain, opts), CheckLinearizability(relabelled, opts)
	if a.Verdict != Unknown && b.Verdict != Unknown && a.Verdict != b.Verdict {
		t.Fatalf("plain %s (%s), relabelled %s (%s)\n%s", a.Verdict, a.Explanation, b.Verdict, b.Explanation, dumpHistory(relabelled))
	}
}

// FuzzMembers relabels the processes of a fuzzed history chosen by mask as
// multilocks over members of their own: no input panics, the relabelled
// history stays well formed, and the verdict is the plain history's (see
// TestMembersFreshChangeNoVerdict).
func FuzzMembers(f *testing.F) {
	for _, ops := range [][]Op{
		{{Process: 1, Lock: "L0", Kind: Acquire, Call: 0, Return: 1, Outcome: OK},
			{Process: 2, Lock: "L0", Kind: Acquire, Call: 2, Return: 3, Outcome: Fail},
			{Process: 1, Lock: "L0", Kind: Release, Call: 4, Return: 5, Outcome: OK},
			{Process: 2, Lock: "L0", Kind: Acquire, Call: 6, Return: 7, Outcome: OK}},
		{{Process: 1, Lock: "L0", Kind: Acquire, Call: 0, Return: 1, Outcome: OK, Lease: 50},
			{Process: 2, Lock: "L0", Kind: Acquire, Call: 2, Return: 3, Outcome: OK},
			{Process: 1, Lock: "L0", Kind: Release, Call: 4, Return: 5, Outcome: Fail},
			{Process: 3, Lock: "L0", Kind: Acquire, Call: 6, Return: 9, Outcome: Info}},
	} {
		var b bytes.Buffer
		if err := WriteHistory(&b, &History{Ops: ops}); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes(), uint8(0x2))
		f.Add(b.Bytes(), uint8(0xff))
	}
	f.Fuzz(func(t *testing.T, data []byte, mask uint8) {
		h, err := ReadHistory(bytes.NewReader(data))
		if err != nil || h.Validate() != nil || len(h.Ops) > 200 {
			return
		}
		plain := &History{Ops: append([]Op(nil), h.Ops...), Faults: h.Faults}
		multi := map[int]bool{}
		for i := range h.Ops {
			o := &h.Ops[i]
			if o.Also != "" {
				return // already a multilock history: nothing to compare with
			}
			if o.Lock == "L0" && mask&(1<<(o.Process%8)) != 0 {
				o.Also, multi[o.Process] = "L0:m1", true
			}
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("relabelled history rejected: %v", err)
		}
		opts := Options{MaxSegmentOps: 64}
		opts.Timeout = 250 * time.Millisecond
		sameVerdict(t, plain, h, multi, opts)
	})
}
