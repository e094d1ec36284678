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
	// retired are the processes an info op retired: none of them may
	// issue another op.
	retired map[int]bool
}

// isRetired reports whether an info op retired process p.
func (r *recorder) isRetired(p int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.retired[p]
}

func (r *recorder) now() int64 { return time.Since(r.base).Nanoseconds() }

// call runs f as op o of a process with the op timeout and records it:
// ok true: OK; ok false, no error: Fail; an error wrapping
// impl.ErrNotObtained (the op timeout ended a wait that took nothing):
// Fail, cancelled; any other error: Info, whose request may still take
// effect until one op timeout after it returned. It reports whether the
// op was ok and whether the process must retire.
func (r *recorder) call(ctx context.Context, o model.Op, f func(context.Context) (bool, error)) (ok, retire bool) {
	return r.callWith(ctx, o, f, nil)
}

// callWith is call with fill, if set, completing the op before it is
// recorded.
func (r *recorder) callWith(ctx context.Context, o model.Op, f func(context.Context) (bool, error), fill func(*model.Op)) (ok, retire bool) {
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
	if o.Outcome == model.Info {
		if r.retired == nil {
			r.retired = map[int]bool{}
		}
		r.retired[o.Process] = true
	}
	r.mu.Unlock()
	return o.Outcome == model.OK, o.Outcome == model.Info
}

// callID is call for an acquire that returns a permit id, recorded as the
// op's PermitID when ok.
func (r *recorder) callID(ctx context.Context, o model.Op, f func(context.Context) (string, bool, error)) (ok, retire bool) {
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
