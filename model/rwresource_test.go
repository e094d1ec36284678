package model

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// Mutual exclusion with shared holds, against a pairwise restatement:
// sections of different processes conflict when they overlap in time and
// are not both reads. The sweep of CheckMutex counts each section that
// conflicts with an earlier one; so does the brute force.
func TestRWMutexAgreesWithPairwise(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h := &History{}
		busy := map[int]int64{}
		for i := range rapid.IntRange(1, 12).Draw(t, "sections") {
			p := rapid.IntRange(0, 3).Draw(t, "p")
			call := busy[p] + int64(rapid.IntRange(0, 20).Draw(t, "gap"))
			ret := call + int64(rapid.IntRange(0, 20).Draw(t, "len"))
			busy[p] = ret + 1
			mode := rapid.SampledFrom([]string{ModeRead, ModeWrite, ""}).Draw(t, "mode")
			h.Ops = append(h.Ops, Op{Process: p, Lock: "R", Kind: Section, Call: call, Return: ret,
				Mode: mode, Read: int64(i), Write: int64(i + 1), Outcome: OK})
		}
		want := 0
		for i := range h.Ops {
			b := &h.Ops[i]
			for j := range h.Ops {
				a := &h.Ops[j]
				earlier := a.Call < b.Call || (a.Call == b.Call && j < i)
				if earlier && a.Process != b.Process && b.Call < a.Return && (a.Mode != ModeRead || b.Mode != ModeRead) {
					want++
					break
				}
			}
		}
		var tally mutexTally
		by, _ := sectionsByResource(h)
		overlapsOf(t.Context(), newExplainer(h, Options{}), "R", by["R"], &tally, 0)
		if tally.overlaps != want {
			t.Fatalf("sweep counts %d conflicting sections, pairwise %d:\n%s", tally.overlaps, want, fmt.Sprint(h.Ops))
		}
	})
}

// Readers overlapping is valid; a writer overlapping a reader is not.
func TestRWMutexSharedHolds(t *testing.T) {
	sec := func(p int, mode string, call, ret int64) Op {
		return Op{Process: p, Lock: "R", Kind: Section, Call: call, Return: ret, Mode: mode, Outcome: OK}
	}
	readers := &History{Ops: []Op{sec(1, ModeRead, 0, 10), sec(2, ModeRead, 5, 15), sec(3, ModeWrite, 20, 30)}}
	if r := CheckMutex(readers, Options{}); r.Verdict != Valid {
		t.Fatalf("overlapping readers: %s", r)
	}
	writer := &History{Ops: []Op{sec(1, ModeRead, 0, 10), sec(2, ModeRead, 5, 15), sec(3, ModeWrite, 12, 30)}}
	if r := CheckMutex(writer, Options{}); r.Verdict != Invalid || r.Count != 1 {
		t.Fatalf("a writer overlapping a reader: %s", r)
	}
}
