package model

import (
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// minimalConflict shrinks an illegal segment's ops to a subset that is
// still illegal, so that an explanation names every op the contradiction
// needs and none it does not. It first drops whole processes (a process's
// ops only make sense together: an ok release without its acquire is a
// different contradiction), halving chunks as in delta debugging, until no
// process can be dropped; then it drops single fail ops (they change no
// state) that are not needed. When budget runs out it returns the smallest
// illegal subset found so far.
func minimalConflict(ops []porcupine.Operation, budget time.Duration) []porcupine.Operation {
	deadline := time.Now().Add(budget)
	illegal := func(sub []porcupine.Operation) bool {
		left := time.Until(deadline)
		return left > 0 && porcupine.CheckOperationsTimeout(mutexModel, sub, left) == porcupine.Illegal
	}
	var procs []int
	for _, op := range ops {
		if !slices.Contains(procs, op.ClientId) {
			procs = append(procs, op.ClientId)
		}
	}
	keep := func(ps []int) []porcupine.Operation {
		var out []porcupine.Operation
		for _, op := range ops {
			if slices.Contains(ps, op.ClientId) {
				out = append(out, op)
			}
		}
		return out
	}
	for chunk := max(len(procs)/2, 1); ; chunk = max(chunk/2, 1) {
		for i := 0; i < len(procs) && len(procs) > 1 && time.Now().Before(deadline); {
			end := min(i+chunk, len(procs))
			cand := slices.Concat(procs[:i], procs[end:])
			if illegal(keep(cand)) {
				procs = cand
			} else {
				i = end
			}
		}
		if chunk == 1 {
			break
		}
	}
	cur := keep(procs)
	for i := 0; i < len(cur) && time.Now().Before(deadline); {
		if in := cur[i].Input.(*stepInput); in.outcome == Fail && in.op != nil {
			if cand := slices.Delete(slices.Clone(cur), i, i+1); illegal(cand) {
				cur = cand
				continue
			}
		}
		i++
	}
	return cur
}
