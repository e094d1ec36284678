package workloads

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
)

// faultTracker knows which faults are on, records fault windows on the run's
// clock, and holds info ops back while a fault is on: a request sent to a
// paused or slowed Redis may take effect when the fault heals, so an info
// op's Deadline is set only then (the end of the last fault active when it
// returned, plus InFlight).
type faultTracker struct {
	r *runner

	mu      sync.Mutex
	active  map[*trackedFault]time.Time // fault -> when it started
	pending []model.Op                  // info ops waiting for faults to heal
}

func newFaultTracker(r *runner) *faultTracker {
	return &faultTracker{r: r, active: map[*trackedFault]time.Time{}}
}

// wrap replaces the nemesis's faults with tracking wrappers and chains its
// Record so that every window lands in the history.
func (t *faultTracker) wrap(n *faults.Nemesis) {
	for i, f := range n.Faults {
		n.Faults[i] = &trackedFault{Fault: f, t: t}
	}
	user := n.Record
	n.Record = func(w faults.Window) {
		fw := model.Fault{Name: w.Name, Target: w.Target, Start: t.r.at(w.Start), End: t.r.at(w.End)}
		if fw.End <= fw.Start {
			fw.End = fw.Start + 1
		}
		_ = t.r.rec.Fault(fw)
		if user != nil {
			user(w)
		}
	}
}

// recordInfo records an info op now, or later when the faults heal.
func (t *faultTracker) recordInfo(o model.Op) {
	t.mu.Lock()
	if len(t.active) > 0 {
		t.pending = append(t.pending, o)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	o.Deadline = max(o.Return, t.r.now()) + int64(t.r.cfg.InFlight)
	_ = t.r.rec.Op(o)
}

// flush records every held-back info op, with its deadline at the latest
// heal so far (now).
func (t *faultTracker) flush() {
	t.mu.Lock()
	ops := t.pending
	t.pending = nil
	t.mu.Unlock()
	healed := t.r.now()
	for _, o := range ops {
		o.Deadline = max(o.Return, healed) + int64(t.r.cfg.InFlight)
		_ = t.r.rec.Op(o)
	}
}

// names lists the active faults, for the progress line.
func (t *faultTracker) names() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for f := range t.active {
		s := f.Name()
		if f.Target() != "" {
			s += " " + f.Target()
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func (t *faultTracker) started(f *trackedFault) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.active[f] = time.Now()
}

func (t *faultTracker) stopped(f *trackedFault) {
	t.mu.Lock()
	_, was := t.active[f]
	delete(t.active, f)
	idle := was && len(t.active) == 0
	t.mu.Unlock()
	if idle {
		t.flush()
	}
}

// trackedFault tells the tracker when its fault is on. A fault counts as on
// from just before Start until Stop returns (even a failed Start may have
// partly broken something).
type trackedFault struct {
	faults.Fault
	t *faultTracker
}

func (f *trackedFault) Start(ctx context.Context) error {
	f.t.started(f)
	return f.Fault.Start(ctx)
}

func (f *trackedFault) Stop(ctx context.Context) error {
	err := f.Fault.Stop(ctx)
	f.t.stopped(f)
	return err
}
