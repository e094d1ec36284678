package workloads

import (
	"context"
	"fmt"
	"slices"
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
	hit     map[string][]int            // target -> the processes it hit when it started
}

func newFaultTracker(r *runner) *faultTracker {
	return &faultTracker{r: r, active: map[*trackedFault]time.Time{}, hit: map[string][]int{}}
}

// wrap replaces the nemesis's faults with tracking wrappers and chains its
// Record so that every window lands in the history.
func (t *faultTracker) wrap(n *faults.Nemesis) {
	for i, f := range n.Faults {
		n.Faults[i] = &trackedFault{Fault: f, t: t}
	}
	user := n.Record
	n.Record = func(w faults.Window) {
		fw := model.Fault{Name: w.Name, Target: w.Target, Start: t.r.at(w.Start), End: t.r.at(w.End), Procs: t.procs(w.Target)}
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

// procs are the processes a fault on target hit: those current on its
// workers when it started and when it ended (nil: a target that is not a
// worker or a client link, a fault on every process).
func (t *faultTracker) procs(target string) []int {
	t.mu.Lock()
	at := t.hit[target]
	t.mu.Unlock()
	now := t.r.procsOf(target)
	for _, p := range at {
		if !slices.Contains(now, p) {
			now = append(now, p)
		}
	}
	slices.Sort(now)
	return now
}

// hits remembers the processes a fault on target hits as it starts: those
// current just before its Start (a crash replaces them) and just after; a
// start that is not more forgets an earlier window's.
func (t *faultTracker) hits(target string, more bool) {
	procs := t.r.procsOf(target)
	t.mu.Lock()
	defer t.mu.Unlock()
	if more {
		for _, p := range t.hit[target] {
			if !slices.Contains(procs, p) {
				procs = append(procs, p)
			}
		}
	}
	t.hit[target] = procs
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

// Began is the tracked fault's (faults.Beginner), if it says.
func (f *trackedFault) Began() time.Time {
	if b, ok := f.Fault.(faults.Beginner); ok {
		return b.Began()
	}
	return time.Time{}
}

func (f *trackedFault) Start(ctx context.Context) error {
	f.t.started(f)
	f.t.hits(f.Target(), false)
	err := f.Fault.Start(ctx)
	f.t.hits(f.Target(), true) // a target may be known only once started
	return err
}

func (f *trackedFault) Stop(ctx context.Context) error {
	err := f.Fault.Stop(ctx)
	f.t.stopped(f)
	return err
}

// procsOf returns the current processes of the workers a fault target
// names: one worker ("w3") and every other owner of its client process, or
// every worker whose connection goes through the client link "c1"; nil for
// any other target.
func (r *runner) procsOf(target string) []int {
	var out []int
	for _, w := range r.workers {
		if target == w.name {
			return r.procsOfGroup(w.g)
		}
		if len(r.rdbs) > 0 && target == fmt.Sprintf("c%d", w.g.conn%len(r.rdbs)) {
			out = append(out, int(w.pid.Load()))
		}
	}
	return out
}

// procsOfGroup returns the current processes of g's workers.
func (r *runner) procsOfGroup(g *group) []int {
	out := make([]int, 0, len(g.workers))
	for _, w := range g.workers {
		out = append(out, int(w.pid.Load()))
	}
	return out
}
