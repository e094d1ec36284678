package model

import (
	"fmt"
	"slices"
	"time"
)

// CheckPermitsConserved checks that no semaphore grant let more permits be
// held than the semaphore's total: for each granted SemAcquire, the
// permits other processes certainly held throughout its call (granted
// before it was called, not yet released) plus its own exceed the most
// permits the semaphore can have had (every set and positive add that may
// have happened by then, every negative add that surely did). Holds of
// retired processes are counted: RSemaphore never takes them back.
func CheckPermitsConserved(h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckConserved}
	names, by, forgotten := judgedObjects(h, opts)
	grants := 0
	for _, name := range names {
		held, total := semCertainHeld(h, by[name]), semMaxTotal(h, by[name])
		if isPermitObject(h, by[name]) {
			held = permitCertainHeld(h, by[name], opts.permitGranularity())
		}
		for _, i := range by[name] {
			a := &h.Ops[i]
			if !isGrantKind(a.Kind) || a.Outcome != OK || a.Return <= a.Call {
				continue
			}
			grants++
			n := permitsOf(a)
			// its own permits count from its return: there, others held
			// what the step function says less its own
			lo, _ := held.minMax(a.Call, a.Return-1)
			lo = min(lo, held.at(a.Return)-n)
			_, hi := total.minMax(a.Call, a.Return)
			if lo+n <= hi {
				continue
			}
			res.Count++
			if len(res.Examples) < opts.maxExamples() {
				e := Example{Lock: name, Class: ClassSafety, Shape: ShapeOverGrant, Ops: []Op{*a},
					Summary: fmt.Sprintf("granted %d permits while others held %d of at most %d", n, lo, hi)}
				e.Faults = faultsOverlapping(h, e.Ops)
				res.Examples = append(res.Examples, e)
			}
		}
	}
	if res.Count > 0 {
		res.Verdict = Invalid
		res.Explanation = fmt.Sprintf("%d of %d grants took more permits than the semaphore had left", res.Count, grants) + forgottenNote(forgotten)
	} else {
		res.Verdict = Valid
		res.Explanation = fmt.Sprintf("%d grants on %d objects within their totals", grants, len(names)) + forgottenNote(forgotten)
	}
	res.Elapsed = time.Since(start)
	return res
}

// semCertainHeld is the permits certainly held: each process's ok
// acquires from their return, until the call of a release (ok or info).
// A process never holds fewer than 0.
func semCertainHeld(h *History, ix []int) steps {
	var evs []stepEvent
	for _, p := range processesOf(h, ix) {
		var held int64
		for _, i := range p {
			o := &h.Ops[i]
			switch {
			case o.Kind == SemAcquire && o.Outcome == OK:
				held += o.N
				evs = append(evs, stepEvent{o.Return, o.N})
			case o.Kind == SemRelease && o.Outcome != Fail:
				d := min(o.N, held)
				held -= d
				evs = append(evs, stepEvent{o.Call, -d})
			}
		}
	}
	return newSteps(evs)
}

// semMaxTotal is the most permits the semaphore can have had in total:
// sets and adds, and releases beyond what their process surely held
// (Redisson lets anyone release: the permits are new).
func semMaxTotal(h *History, ix []int) steps { return semTotal(h, ix, true) }

// semMinTotal is the fewest permits the semaphore can have had in total,
// counting the releases beyond what their process can have held.
func semMinTotal(h *History, ix []int) steps { return semTotal(h, ix, false) }

// semTotal is semMaxTotal (most) or semMinTotal: a change that raises the
// bound counts from the op's call, one that lowers it from the op's end
// (its return, or for the fewest its deadline), and only if it surely
// happened.
func semTotal(h *History, ix []int, most bool) steps {
	evs := semStrayReleases(h, ix, most)
	for _, i := range ix {
		o := &h.Ops[i]
		raises := (o.N > 0) == most
		switch {
		case o.Outcome == Fail || (o.Kind != SemSet && o.Kind != SemAdd) || o.N == 0:
		case raises:
			evs = append(evs, stepEvent{o.Call, o.N})
		case o.Outcome == OK && most:
			evs = append(evs, stepEvent{o.Return, o.N})
		case o.Outcome == OK:
			evs = append(evs, stepEvent{o.effectiveDeadline(), o.N})
		}
	}
	return newSteps(evs)
}

// semMaybeHeld is the most permits that may have been held: each
// process's acquires that were not refused, from their call, until the
// return of an ok release; an info acquire for good.
func semMaybeHeld(h *History, ix []int) steps {
	var evs []stepEvent
	for _, p := range processesOf(h, ix) {
		var held int64
		for _, i := range p {
			o := &h.Ops[i]
			switch {
			case o.Kind == SemAcquire && o.Outcome != Fail:
				held += o.N
				evs = append(evs, stepEvent{o.Call, o.N})
			case o.Kind == SemRelease && o.Outcome == OK:
				d := min(o.N, held)
				held -= d
				evs = append(evs, stepEvent{o.Return, -d})
			}
		}
	}
	return newSteps(evs)
}

// semStrayReleases are the permits releases gave beyond what their process
// held: for the most total (most), beyond its ok acquires, from the
// release's call unless it failed; for the fewest, beyond every acquire
// that was not refused, from the return of an ok release.
func semStrayReleases(h *History, ix []int, most bool) []stepEvent {
	var evs []stepEvent
	for _, p := range processesOf(h, ix) {
		var held int64
		for _, i := range p {
			o := &h.Ops[i]
			switch {
			case o.Kind == SemAcquire && (o.Outcome == OK || (!most && o.Outcome == Info)):
				held += o.N
			case o.Kind == SemRelease && (o.Outcome == OK || (most && o.Outcome == Info)):
				stray := max(o.N-held, 0)
				held -= o.N - stray
				if stray == 0 {
					continue
				}
				if most {
					evs = append(evs, stepEvent{o.Call, stray})
				} else {
					evs = append(evs, stepEvent{o.Return, stray})
				}
			}
		}
	}
	return evs
}

// processesOf groups ix (sorted by call) per process, in call order.
func processesOf(h *History, ix []int) [][]int {
	by := map[int][]int{}
	var ps []int
	for _, i := range ix {
		p := h.Ops[i].Process
		if _, ok := by[p]; !ok {
			ps = append(ps, p)
		}
		by[p] = append(by[p], i)
	}
	slices.Sort(ps)
	out := make([][]int, 0, len(ps))
	for _, p := range ps {
		out = append(out, by[p])
	}
	return out
}
