package results

import (
	"cmp"
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// handoffs fills each part's HandoffsIn and HandoffP50: the grants to its
// processes that take the lock over from a process of another
// implementation. A hand-off is an acquire granted (ok) right after a
// release (ok) that freed the lock (the releasing process's last hold), on
// the same lock with no grant in between, by a process whose acquire was
// called before that release was: it was waiting, so it was woken (by the
// other implementation's unlock message, or by polling). Its latency runs
// from the release's call to the grant's return, as in bench.
func handoffs(h *model.History, parts []Part) {
	n := len(parts)
	ops := slices.Clone(h.Ops)
	slices.SortStableFunc(ops, func(a, b model.Op) int { return cmp.Compare(a.Return, b.Return) })
	type freed struct {
		part int
		call int64
	}
	holds := map[string]map[int]int{} // lock -> process -> holds
	last := map[string]*freed{}       // lock -> the release that freed it
	lat := make([][]time.Duration, n)
	for _, o := range ops {
		if o.Process < 0 || o.Outcome != model.OK {
			continue
		}
		hs := holds[o.Lock]
		if hs == nil {
			hs = map[int]int{}
			holds[o.Lock] = hs
		}
		switch o.Kind {
		case model.Acquire:
			hs[o.Process]++
			if hs[o.Process] > 1 {
				continue // a reentry
			}
			if f := last[o.Lock]; f != nil && f.part != model.PartIndex(o, n) && o.Call < f.call {
				i := model.PartIndex(o, n)
				lat[i] = append(lat[i], time.Duration(o.Return-f.call))
			}
			last[o.Lock] = nil
		case model.Release:
			if hs[o.Process] > 0 {
				hs[o.Process]--
			}
			if hs[o.Process] == 0 {
				last[o.Lock] = &freed{part: model.PartIndex(o, n), call: o.Call}
			}
		}
	}
	for i := range parts {
		parts[i].HandoffsIn = len(lat[i])
		if len(lat[i]) > 0 {
			slices.Sort(lat[i])
			parts[i].HandoffP50 = lat[i][len(lat[i])/2]
		}
	}
}
