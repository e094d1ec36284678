package model

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// A brute-force linearizability check of small read-write lock histories
// against a restatement of the read-write lock's semantics written from the
// documentation (Op.Mode, rwlock.go's list), not from rwStep or the
// balances: every order consistent with real time is tried, info ops both
// with and without effect, and every retired hold is kept on its own (with
// its side and bound) rather than folded into two bounds.

// rwBrute is the state: live holds per process and side, their longest
// leases, and retired holds.
type rwBrute struct {
	now     int64
	holds   map[[2]int]int   // {process, side (0 read, 1 write)} -> holds
	leases  map[[2]int]int64 // longest lease of those holds
	retired []rwRetiredBound
}

type rwRetiredBound struct {
	until int64
	write bool
}

func (s rwBrute) clone() rwBrute {
	c := rwBrute{now: s.now, holds: map[[2]int]int{}, leases: map[[2]int]int64{}, retired: append([]rwRetiredBound(nil), s.retired...)}
	for k, n := range s.holds {
		c.holds[k] = n
	}
	for k, l := range s.leases {
		c.leases[k] = l
	}
	return c
}

func (s rwBrute) key() string {
	var parts []string
	for k, n := range s.holds {
		parts = append(parts, fmt.Sprintf("%v:%d:%d", k, n, s.leases[k]))
	}
	sort.Strings(parts)
	r := make([]string, len(s.retired))
	for i, b := range s.retired {
		r[i] = fmt.Sprint(b)
	}
	sort.Strings(r)
	return fmt.Sprintf("%d|%s|%s", s.now, strings.Join(parts, ","), strings.Join(r, ","))
}

func sideOf(o bruteOp) int {
	if o.op != nil && o.op.Mode == ModeRead {
		return 0
	}
	return 1
}

// othersHold reports whether a process other than p holds side (-1: either).
func (s rwBrute) othersHold(p, side int) bool {
	for k, n := range s.holds {
		if n > 0 && k[0] != p && (side < 0 || k[1] == side) {
			return true
		}
	}
	return false
}

// grantable: may p be granted side now (ignoring retired holds, which a
// grant makes vanish)? A read: no other writer. A write: no other holder,
// and p does not hold reads without the write (no upgrade).
func (s rwBrute) grantable(p, side int) bool {
	if side == 0 {
		return !s.othersHold(p, 1)
	}
	return !s.othersHold(p, -1) && (s.holds[[2]int{p, 0}] == 0 || s.holds[[2]int{p, 1}] > 0)
}

func (s *rwBrute) grant(p, side int, lease int64) {
	kept := s.retired[:0]
	for _, r := range s.retired {
		if side == 0 && !r.write { // a read grant: retired reads may remain
			kept = append(kept, r)
		}
	}
	s.retired = kept
	k := [2]int{p, side}
	s.holds[k]++
	s.leases[k] = max(s.leases[k], lease)
}

func (s *rwBrute) retire(p int, deadline int64) {
	for side := range 2 {
		k := [2]int{p, side}
		if s.holds[k] > 0 {
			s.retired = append(s.retired, rwRetiredBound{deadline + s.leases[k], side == 1})
		}
		delete(s.holds, k)
		delete(s.leases, k)
	}
}

func (s rwBrute) apply(o bruteOp) []rwBrute {
	s = s.clone()
	s.now = max(s.now, o.call)
	kept := s.retired[:0]
	for _, r := range s.retired {
		if r.until >= s.now {
			kept = append(kept, r)
		}
	}
	s.retired = kept
	p, side := o.p, sideOf(o)
	k := [2]int{p, side}
	switch {
	case o.kind == Acquire && o.outcome == OK:
		if !s.grantable(p, side) {
			return nil
		}
		s.grant(p, side, o.lease)
		return []rwBrute{s}
	case o.kind == Acquire && o.outcome == Fail:
		holdsAny := s.holds[[2]int{p, 0}] > 0 || s.holds[[2]int{p, 1}] > 0
		mustGrant := s.holds[[2]int{p, 1}] > 0 || (side == 0 && holdsAny)
		retiredBlocks := false
		for _, r := range s.retired {
			retiredBlocks = retiredBlocks || side == 1 || r.write
		}
		switch {
		case o.cancelled:
			return []rwBrute{s}
		case mustGrant:
			return nil
		case !s.grantable(p, side) || retiredBlocks || o.contended:
			return []rwBrute{s}
		}
		return nil
	case o.kind == Acquire: // info
		out := []rwBrute{s.clone()}
		if s.grantable(p, side) {
			t := s.clone()
			t.grant(p, side, o.lease)
			out = append(out, t)
		}
		for i := range out {
			out[i].retire(p, o.deadline)
		}
		return out
	case o.kind == Release && o.outcome == OK:
		if s.holds[k] == 0 {
			return nil
		}
		if s.holds[k]--; s.holds[k] == 0 {
			delete(s.holds, k)
			delete(s.leases, k)
		}
		return []rwBrute{s}
	case o.kind == Release && o.outcome == Fail:
		if s.holds[k] > 0 {
			return nil
		}
		return []rwBrute{s}
	case o.kind == Release: // info
		out := []rwBrute{s.clone()}
		if s.holds[k] > 0 {
			t := s.clone()
			t.holds[k]--
			out = append(out, t)
		}
		for i := range out {
			out[i].retire(p, o.deadline)
		}
		return out
	case o.kind == Abandon:
		s.retire(p, o.deadline)
		return []rwBrute{s}
	case o.kind == Expire:
		for side := range 2 {
			delete(s.holds, [2]int{p, side})
			delete(s.leases, [2]int{p, side})
		}
		return []rwBrute{s}
	}
	return nil
}

// rwBruteLinearizable is bruteLinearizable for a read-write lock.
func rwBruteLinearizable(ops []bruteOp) bool {
	return bruteSearch(ops, rwBrute{holds: map[[2]int]int{}, leases: map[[2]int]int64{}})
}

// checkRWBrute is checkBrute for read-write locks (every lock of h is one).
func checkRWBrute(t interface {
	Helper()
	Fatalf(string, ...any)
}, h *History, opts Options) (Verdict, bool) {
	t.Helper()
	return checkBruteWith(t, h, opts, rwBruteLinearizable)
}

// The read-write model agrees with the exhaustive search.
func TestRWBruteForceAgreesWithModel(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, perturbed := genRWHistory(t, 9, 2, true)
		v, _ := checkRWBrute(t, h, opts)
		if !perturbed && v != Valid {
			t.Fatalf("a correct read-write lock's history judged %s by the brute force:\n%s", v, dumpHistory(h))
		}
	})
}

// A correct read-write lock's histories are never called invalid, and the
// segmented verdict equals the unsplit one.
func TestRWGroundTruthHistoriesAreValid(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genRWHistory(t, 80, 2, false)
		if v := checkSplitEqualsWhole(t, h, opts); v != Valid {
			t.Fatalf("a correct read-write lock's history judged %s:\n%s\n%s", v, CheckLinearizability(h, opts), dumpHistory(h))
		}
	})
}

// On perturbed read-write histories, segmenting changes no verdict.
func TestRWSplitEqualsWhole(t *testing.T) {
	diffChecks(t, 500)
	invalid := 0
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genRWHistory(t, 80, 2, true)
		if checkSplitEqualsWhole(t, h, opts) == Invalid {
			invalid++
		}
	})
	t.Logf("%d invalid histories among those checked", invalid)
}
