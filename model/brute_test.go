package model

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"
)

// A brute-force linearizability check of small histories against a
// restatement of the lock's semantics written from the documentation of
// Op, Kind and lockState, not from step or segmentsOf: every order of one
// lock's ops consistent with real time (a before b when a's deadline is
// before b's call) is tried, info ops both with and without effect. The
// model (porcupine with step, split or not) must agree with it.

// bruteMaxOps bounds the ops of one lock the search is run on.
const bruteMaxOps = 9

// bruteOp is one op of one lock, or a retirement of its process by an op on
// another lock (op nil).
type bruteOp struct {
	op                   *Op
	kind                 Kind
	outcome              Outcome
	p                    int
	call, deadline       int64
	lease                int64 // effective lease of an acquire
	cancelled, contended bool
}

// bruteOps restates lock's ops of h for the search.
func bruteOps(h *History, lock string, opts Options) []bruteOp {
	watchdog := opts.watchdogLease()
	deadline := func(o *Op) int64 {
		if o.Outcome == Info && o.Deadline > o.Return {
			return o.Deadline
		}
		return o.Return
	}
	var out []bruteOp
	procs := map[int]bool{}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Lock != lock || o.Kind == Section {
			continue
		}
		lease := o.Lease
		if lease <= 0 {
			lease = watchdog
		}
		out = append(out, bruteOp{op: o, kind: o.Kind, outcome: o.Outcome, p: o.Process,
			call: o.Call, deadline: deadline(o), lease: lease, cancelled: o.Cancelled})
		procs[o.Process] = true
	}
	for i := range h.Ops { // retired on another lock: retired on this one too
		o := &h.Ops[i]
		if o.Lock != lock && procs[o.Process] && (o.Outcome == Info || o.Kind == Abandon) && o.Kind != Section && o.Kind != Expire {
			out = append(out, bruteOp{kind: Abandon, p: o.Process, call: o.Call, deadline: deadline(o)})
		}
	}
	if opts.Fair { // a fail acquire while another process's acquire was in flight
		for i := range out {
			a := &out[i]
			if a.kind != Acquire || a.outcome != Fail {
				continue
			}
			for _, b := range out {
				if b.kind == Acquire && b.p != a.p && b.op.Call <= a.op.Return && b.op.Return >= a.op.Call {
					a.contended = true
				}
			}
		}
	}
	return out
}

// bruteState is the lock as the documentation describes it: live holders
// with their hold counts and longest leases, and the bounds until which
// holds of retired processes may still exist (each may vanish any time
// before), at time now (the latest call among the ops taken so far).
type bruteState struct {
	now     int64
	holds   map[int]int
	leases  map[int]int64
	retired []int64
}

func (s bruteState) clone() bruteState {
	c := bruteState{now: s.now, holds: map[int]int{}, leases: map[int]int64{}, retired: append([]int64(nil), s.retired...)}
	for p, n := range s.holds {
		c.holds[p] = n
	}
	for p, l := range s.leases {
		c.leases[p] = l
	}
	return c
}

func (s bruteState) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d|", s.now)
	ps := make([]int, 0, len(s.holds))
	for p := range s.holds {
		ps = append(ps, p)
	}
	sort.Ints(ps)
	for _, p := range ps {
		fmt.Fprintf(&b, "%d:%d:%d,", p, s.holds[p], s.leases[p])
	}
	r := append([]int64(nil), s.retired...)
	sort.Slice(r, func(i, j int) bool { return r[i] < r[j] })
	fmt.Fprintf(&b, "|%v", r)
	return b.String()
}

// grant gives p one more hold; retired holds have vanished.
func (s *bruteState) grant(p int, lease int64) {
	s.retired = nil
	s.holds[p]++
	s.leases[p] = max(s.leases[p], lease)
}

// retire makes p's holds a retired process's: they may last until one
// lease (the longest of its holds) after p's last request could reach the
// server.
func (s *bruteState) retire(p int, deadline int64) {
	if s.holds[p] > 0 {
		s.retired = append(s.retired, deadline+s.leases[p])
	}
	delete(s.holds, p)
	delete(s.leases, p)
}

// apply returns the states o can leave s in (none: o cannot take effect
// with its recorded outcome in s).
func (s bruteState) apply(o bruteOp) []bruteState {
	s = s.clone()
	s.now = max(s.now, o.call)
	kept := s.retired[:0]
	for _, e := range s.retired {
		if e >= s.now {
			kept = append(kept, e)
		}
	}
	s.retired = kept
	p, mine, other := o.p, s.holds[o.p], false
	for q, n := range s.holds {
		other = other || (q != p && n > 0)
	}
	switch {
	case o.kind == Acquire && o.outcome == OK:
		if other {
			return nil
		}
		s.grant(p, o.lease)
		return []bruteState{s}
	case o.kind == Acquire && o.outcome == Fail:
		switch {
		case o.cancelled: // "failing is then legal whatever the lock's state"
			return []bruteState{s}
		case mine > 0: // a reentrant acquire must succeed
			return nil
		case other || len(s.retired) > 0 || o.contended:
			return []bruteState{s}
		}
		return nil
	case o.kind == Acquire: // info: took effect or not; p is retired
		out := []bruteState{s.clone()}
		if !other {
			t := s.clone()
			t.grant(p, o.lease)
			out = append(out, t)
		}
		for i := range out {
			out[i].retire(p, o.deadline)
		}
		return out
	case o.kind == Release && o.outcome == OK:
		if mine == 0 {
			return nil
		}
		s.holds[p]--
		if s.holds[p] == 0 {
			delete(s.holds, p)
			delete(s.leases, p)
		}
		return []bruteState{s}
	case o.kind == Release && o.outcome == Fail:
		if mine > 0 {
			return nil
		}
		return []bruteState{s}
	case o.kind == Release: // info
		out := []bruteState{s.clone()}
		if mine > 0 {
			t := s.clone()
			t.holds[p]--
			out = append(out, t)
		}
		for i := range out {
			out[i].retire(p, o.deadline)
		}
		return out
	case o.kind == Abandon:
		s.retire(p, o.deadline)
		return []bruteState{s}
	case o.kind == Expire: // the server dropped p's holds (if any are left)
		delete(s.holds, p)
		delete(s.leases, p)
		return []bruteState{s}
	}
	return nil
}

// bruteLinearizable reports whether some order of ops consistent with real
// time takes every op legally from a free lock.
func bruteLinearizable(ops []bruteOp) bool {
	return bruteSearch(ops, bruteState{holds: map[int]int{}, leases: map[int]int64{}})
}

// bruteStater is a brute-force state: its key for memoising dead ends, and
// the states an op can leave it in.
type bruteStater[S any] interface {
	key() string
	apply(o bruteOp) []S
}

// bruteSearch tries every order of ops consistent with real time from
// init, and reports whether one takes every op legally.
func bruteSearch[S bruteStater[S]](ops []bruteOp, init S) bool {
	full := uint32(1)<<len(ops) - 1
	dead := map[string]bool{}
	var search func(done uint32, s S) bool
	search = func(done uint32, s S) bool {
		if done == full {
			return true
		}
		key := fmt.Sprint(done, "/", s.key())
		if dead[key] {
			return false
		}
		for i, o := range ops {
			if done&(1<<i) != 0 || !bruteMayGoNext(ops, done, i) {
				continue
			}
			for _, next := range s.apply(o) {
				if search(done|1<<i, next) {
					return true
				}
			}
		}
		dead[key] = true
		return false
	}
	return search(0, init)
}

// bruteMayGoNext: no op still to place must come before ops[i].
func bruteMayGoNext(ops []bruteOp, done uint32, i int) bool {
	for j, o := range ops {
		if j != i && done&(1<<j) == 0 && o.deadline < ops[i].call {
			return false
		}
	}
	return true
}

// checkBrute compares, lock by lock, the brute force with porcupine on the
// unsplit history, and overall with CheckLinearizability. Locks with more
// than bruteMaxOps ops are left out (and so is the overall comparison).
func checkBrute(t interface {
	Helper()
	Fatalf(string, ...any)
}, h *History, opts Options) (Verdict, bool) {
	t.Helper()
	return checkBruteWith(t, h, opts, bruteLinearizable)
}

// checkBruteWith is checkBrute with the exhaustive search linearizable
// (bruteLinearizable; rwBruteLinearizable for read-write locks).
func checkBruteWith(t interface {
	Helper()
	Fatalf(string, ...any)
}, h *History, opts Options, linearizable func([]bruteOp) bool) (Verdict, bool) {
	t.Helper()
	whole := wholeOps(h, opts)
	verdict, all := Valid, true
	for _, l := range indexLocks(h).locks {
		ops := bruteOps(h, l, opts)
		if len(ops) > bruteMaxOps {
			all = false
			continue
		}
		brute := linearizable(ops)
		pc := porcupine.CheckOperationsTimeout(mutexModel, whole[l], diffTimeout)
		if pc == porcupine.Unknown {
			t.Fatalf("porcupine undecided on %d ops:\n%s", len(ops), dumpHistory(h))
		}
		if brute != (pc == porcupine.Ok) {
			t.Fatalf("lock %s: brute force says linearizable=%v, porcupine with step says %v, options %+v\nhistory:\n%s",
				l, brute, pc, opts, dumpHistory(h))
		}
		if !brute {
			verdict = Invalid
		}
	}
	if all {
		opts.Timeout = diffTimeout
		if r := CheckLinearizability(h, opts); r.Verdict != verdict {
			t.Fatalf("brute force says %s, CheckLinearizability says %s: %s %v\nhistory:\n%s", verdict, r.Verdict, r.Explanation, r.Examples, dumpHistory(h))
		}
	}
	return verdict, all
}

// The model agrees with an exhaustive search over linearizations of an
// independent statement of the lock's semantics.
func TestBruteForceAgreesWithModel(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, perturbed := genHistory(t, genConfig{maxSteps: 9, maxLocks: 2, perturb: true})
		v, _ := checkBrute(t, h, opts)
		if !perturbed && v != Valid {
			t.Fatalf("a correct lock's history judged %s by the brute force:\n%s", v, dumpHistory(h))
		}
	})
}
