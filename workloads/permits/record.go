package permits

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// recorder collects the ops of one run on one monotonic base.
type recorder struct {
	base    time.Time
	timeout time.Duration
	mu      sync.Mutex
	ops     []model.Op
	// workers is the plan's: fresh process ids start after the workers'.
	workers int
	// ids are the workers' current process ids, when not their own index
	// (an info op or a crash gave them a fresh one); past, every fresh id
	// each had; next, the next fresh id.
	ids  map[int]int
	past map[int][]idSpan
	next int
	// retired are the workers a crash retired: none of them calls again
	// until revived; crashes counts each worker's crashes.
	retired map[int]bool
	crashes map[int]int
	// stalls are the stalled processes': each call waits until its channel
	// is closed (Unstall).
	stalls map[int]chan struct{}
	// faults are the nemesis's windows, as they healed.
	faults []model.Fault
}

// retire retires worker p (a crash): its next call does not run.
func (r *recorder) retire(p int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.retired == nil {
		r.retired, r.crashes = map[int]bool{}, map[int]int{}
	}
	r.retired[p] = true
	r.crashes[p]++
}

// crashCount is how many times worker w crashed so far.
func (r *recorder) crashCount(w int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.crashes[w]
}

// revive undoes the crashes of worker w, under a fresh process id (its
// replacement), unless it crashed again since it had crashed gen times
// (a crash of the replacement while it started): then it stays retired.
func (r *recorder) revive(w, gen int) {
	r.mu.Lock()
	again := r.crashes[w] != gen
	if !again {
		delete(r.retired, w)
	}
	r.mu.Unlock()
	if !again {
		r.renew(w, true)
	}
}

// stall makes process p's calls wait until unstall(p).
func (r *recorder) stall(p int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stalls == nil {
		r.stalls = map[int]chan struct{}{}
	}
	if r.stalls[p] == nil {
		r.stalls[p] = make(chan struct{})
	}
}

// unstall lets process p's calls go on. Idempotent.
func (r *recorder) unstall(p int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.stalls[p]; c != nil {
		close(c)
		delete(r.stalls, p)
	}
}

// unstallAll ends every stall.
func (r *recorder) unstallAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for p, c := range r.stalls {
		close(c)
		delete(r.stalls, p)
	}
}

// waitStall waits while process p is stalled, or until ctx ends.
func (r *recorder) waitStall(ctx context.Context, p int) {
	r.mu.Lock()
	c := r.stalls[p]
	r.mu.Unlock()
	if c == nil {
		return
	}
	select {
	case <-c:
	case <-ctx.Done():
	}
}

// fault records a healed fault window.
func (r *recorder) fault(f model.Fault) {
	if f.End <= f.Start {
		f.End = f.Start + 1
	}
	r.mu.Lock()
	r.faults = append(r.faults, f)
	r.mu.Unlock()
}

// stretchDeadlines gives each info op that overlaps a fault window the
// window's heal plus one op timeout to take effect: a request held back by
// a fault (a black-holed link, a paused server) may run when it heals.
func (r *recorder) stretchDeadlines() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.ops {
		o := &r.ops[i]
		if o.Outcome != model.Info {
			continue
		}
		for _, f := range r.faults {
			if f.Start < o.Return && f.End > o.Call {
				o.Deadline = max(o.Deadline, f.End+r.timeout.Nanoseconds())
			}
		}
	}
}

// isRetired reports whether a crash retired worker p.
func (r *recorder) isRetired(p int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.retired[p]
}

func (r *recorder) now() int64 { return time.Since(r.base).Nanoseconds() }

// call runs f as op o of worker o.Process with the op timeout and records
// it: ok true: OK; ok false, no error: Fail; an error wrapping
// impl.ErrNotObtained (the op timeout ended a wait that took nothing):
// Fail, cancelled; any other error: Info, whose request may still take
// effect until one op timeout after it returned. The op is recorded under
// the worker's current process id; an info op gives the worker a fresh id
// and a pause of infoBackoff (Jepsen's rule: a process whose op is
// indeterminate never calls again, a fresh one takes its place). A
// stalled worker's call waits for the stall's end first; a crashed
// worker's does not run. It reports whether the op was ok and whether the
// worker must stop (it crashed, or ctx ended).
func (r *recorder) call(ctx context.Context, o model.Op, f func(context.Context) (bool, error)) (ok, stop bool) {
	return r.callWith(ctx, o, f, nil)
}

// infoBackoff is how long a worker waits after an info op before it calls
// again under its fresh id: a client whose calls fail at once (a refused
// dial) must not spin.
const infoBackoff = 100 * time.Millisecond

// process is worker w's current process id.
func (r *recorder) process(w int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := r.ids[w]; ok {
		return id
	}
	return w
}

// renew gives worker w a fresh process id, the next after the workers'
// and every fresh id so far; revived says it replaces a crashed client.
func (r *recorder) renew(w int, revived bool) {
	at := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids == nil {
		r.ids, r.past, r.next = map[int]int{}, map[int][]idSpan{}, r.workers+1
	}
	r.ids[w] = r.next
	r.past[w] = append(r.past[w], idSpan{id: r.next, from: at, revived: revived})
	r.next++
}

// idSpan is a fresh process id of a worker's, from when it was given.
type idSpan struct {
	id      int
	from    int64
	revived bool // the id of a replacement after a crash
}

// idsDuring are the process ids worker w had at some instant of [start,
// end], in order; but the ids of replacements that began after start
// when onWorker (a fault on the worker itself, which its replacement
// escapes).
func (r *recorder) idsDuring(w int, start, end int64, onWorker bool) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	spans := append([]idSpan{{id: w}}, r.past[w]...)
	var out []int
	for k, sp := range spans {
		if k+1 < len(spans) && spans[k+1].from < start || sp.from > end || onWorker && sp.revived && sp.from > start {
			continue
		}
		out = append(out, sp.id)
	}
	return out
}

// callWith is call with fill, if set, completing the op before it is
// recorded.
func (r *recorder) callWith(ctx context.Context, o model.Op, f func(context.Context) (bool, error), fill func(*model.Op)) (ok, stop bool) {
	w := o.Process
	r.waitStall(ctx, w)
	if r.isRetired(w) || ctx.Err() != nil {
		return false, true
	}
	o.Process = r.process(w)
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	o.Call = r.now()
	ok, err := f(ctx)
	o.Return = r.now()
	switch {
	case err == nil && ok:
		o.Outcome = model.OK
	case err == nil:
		o.Outcome = model.Fail
	case errors.Is(err, impl.ErrNotObtained):
		o.Outcome, o.Cancelled, o.Error = model.Fail, true, err.Error()
	default:
		o.Outcome, o.Error = model.Info, err.Error()
		o.Deadline = o.Return + r.timeout.Nanoseconds()
	}
	if fill != nil {
		fill(&o)
	}
	r.mu.Lock()
	r.ops = append(r.ops, o)
	r.mu.Unlock()
	if o.Outcome == model.Info {
		r.renew(w, false)
		return false, !sleepUntil(ctx, time.Now(), infoBackoff)
	}
	return o.Outcome == model.OK, false
}

// callID is call for an acquire that returns a permit id, recorded as the
// op's PermitID when ok.
func (r *recorder) callID(ctx context.Context, o model.Op, f func(context.Context) (string, bool, error)) (ok, stop bool) {
	var id string
	run := func(ctx context.Context) (bool, error) {
		got, ok, err := f(ctx)
		id = got
		return ok, err
	}
	o.PermitID = "" // set below once known
	return r.callWith(ctx, o, run, func(o *model.Op) {
		if o.Outcome == model.OK {
			o.PermitID = id
		}
	})
}
