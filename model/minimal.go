package model

import (
	"context"

	"github.com/anishathalye/porcupine"
)

// minimalConflict drops from an illegal segment the fail ops that its
// contradiction does not need, so that an explanation names the fail ops
// it needs (a failed TryLock that forces a grant early) and none it does
// not. Only fail ops are dropped: they change no state, so dropping one
// removes a constraint and can never create a contradiction that was not
// there (dropping a grant could: another's fail would then meet a free
// lock). Chunks of halving size go first, as in delta debugging, so many
// unneeded fail ops go in a few checks. When budget runs out it returns
// what it has, still illegal. m is the mutex model (see stoppable).
func minimalConflict(ctx context.Context, m porcupine.Model, ops []porcupine.Operation) []porcupine.Operation {
	var fails []int // indices into ops of the droppable fail ops
	for i, op := range ops {
		if in := op.Input.(*stepInput); in.outcome == Fail && in.op != nil {
			fails = append(fails, i)
		}
	}
	dropped := make([]bool, len(ops))
	without := func(cand []int) []porcupine.Operation {
		gone := map[int]bool{}
		for _, i := range cand {
			gone[i] = true
		}
		var out []porcupine.Operation
		for i, op := range ops {
			if !dropped[i] && !gone[i] {
				out = append(out, op)
			}
		}
		return out
	}
	illegal := func(sub []porcupine.Operation) bool {
		return ctx.Err() == nil && !linearizable(m, sub) && ctx.Err() == nil
	}
	for chunk := max(len(fails)/2, 1); len(fails) > 0; chunk /= 2 {
		var kept []int
		for i := 0; i < len(fails); i += chunk {
			cand := fails[i:min(i+chunk, len(fails))]
			if illegal(without(cand)) {
				for _, k := range cand {
					dropped[k] = true
				}
			} else {
				kept = append(kept, cand...)
			}
		}
		fails = kept
		if chunk == 1 || ctx.Err() != nil {
			break
		}
	}
	return without(nil)
}
