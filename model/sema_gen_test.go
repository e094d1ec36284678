package model

import (
	"fmt"

	"pgregory.net/rapid"
)

// semGenConfig shapes genSemHistory.
type semGenConfig struct {
	steps   int  // ops at most
	objects int  // semaphores at most
	perturb bool // then change outcomes and counts: (mostly) invalid
}

// genSemHistory draws the history of a correct counting semaphore: a
// sequence of ops applied to the sequential semaphore at increasing
// instants, each op then given a call before and a return after its
// instant, on processes that run one op at a time. Releases give back
// only what their process holds. Some ops are info (their process
// retires), taking effect or not.
func genSemHistory(t *rapid.T, cfg semGenConfig) *History {
	h := &History{Header: Header{Version: FormatVersion}}
	nobj := rapid.IntRange(1, cfg.objects).Draw(t, "objects")
	state := make([]semState, nobj)
	type proc struct {
		free    int64 // last return
		held    map[int]int64
		retired bool
	}
	var procs []*proc
	nops := rapid.IntRange(1, cfg.steps).Draw(t, "ops")
	for k := range nops {
		at := int64(k+1) * 100
		obj := rapid.IntRange(0, nobj-1).Draw(t, "obj")
		name := fmt.Sprintf("s%d", obj)
		kind := rapid.SampledFrom([]Kind{SemAcquire, SemAcquire, SemAcquire, SemRelease, SemRelease, SemAdd, SemSet}).Draw(t, "kind")
		var free []int
		for i, p := range procs {
			if !p.retired && p.free < at-1 && (kind != SemRelease || p.held[obj] > 0) {
				free = append(free, i)
			}
		}
		if kind == SemRelease && len(free) == 0 {
			kind = SemAcquire
			for i, p := range procs {
				if !p.retired && p.free < at-1 {
					free = append(free, i)
				}
			}
		}
		pi := len(procs)
		if len(free) > 0 && (kind == SemRelease || rapid.IntRange(0, 4).Draw(t, "newproc") > 0) {
			pi = free[rapid.IntRange(0, len(free)-1).Draw(t, "proc")]
		} else {
			procs = append(procs, &proc{held: map[int]int64{}})
		}
		p := procs[pi]
		o := Op{Process: pi, Lock: name, Kind: kind}
		o.Call = max(p.free+1, at-rapid.Int64Range(0, 150).Draw(t, "before"))
		o.Return = at + rapid.Int64Range(0, 150).Draw(t, "after")
		switch kind {
		case SemAcquire:
			o.N = rapid.Int64Range(1, 3).Draw(t, "n")
			o.Wait = rapid.Int64Range(0, 50).Draw(t, "wait")
		case SemRelease:
			o.N = rapid.Int64Range(1, p.held[obj]).Draw(t, "n")
		case SemAdd:
			o.N = rapid.Int64Range(-1, 3).Draw(t, "n")
		case SemSet:
			o.N = rapid.Int64Range(0, 4).Draw(t, "n")
		}
		info := rapid.IntRange(0, 19).Draw(t, "info") == 0
		next := semStep(state[obj], semInput{kind: kind, n: o.N, outcome: OK})
		o.Outcome = Fail
		if len(next) == 1 && (!info || rapid.Bool().Draw(t, "effect")) {
			state[obj] = next[0]
			o.Outcome = OK
			switch kind {
			case SemAcquire:
				p.held[obj] += o.N
			case SemRelease:
				p.held[obj] -= o.N
			}
		}
		if info {
			o.Outcome = Info
			p.retired = true
		}
		if cfg.perturb {
			perturbSemOp(t, &o)
		}
		p.free = o.Return
		h.Ops = append(h.Ops, o)
	}
	return h
}

// perturbSemOp sometimes changes an op's outcome or count.
func perturbSemOp(t *rapid.T, o *Op) {
	switch rapid.IntRange(0, 9).Draw(t, "perturb") {
	case 0:
		if o.Outcome == OK {
			o.Outcome = Fail
		} else if o.Outcome == Fail {
			o.Outcome = OK
		}
	case 1:
		o.N += rapid.Int64Range(1, 2).Draw(t, "dn")
	}
}
