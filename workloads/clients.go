package workloads

import (
	"context"
	"fmt"

	"github.com/lockcheck/lockcheck/faults"
)

// clients implements faults.Clients on the runner's workers. Targets are
// the workers' names, "w0" .. "w<processes-1>"; a worker keeps its name
// across the processes it runs.
//
// Stall freezes the worker at the stall point of its next critical section
// (between the read of the protected register and the write), while it
// holds the lock. A handle whose lock client is a process of its own (an
// external driver, impl.Freezer) has that process frozen with SIGSTOP until
// Unstall: a real pause, renewal threads included. Otherwise, to stop the
// hold's renewal the way a whole-process pause would, the handle is
// abandoned (impl.Abandoner: renewal stops, nothing is unlocked); a subject
// without either keeps renewing. Unstall lets the
// worker write (with its possibly stale fencing token) and Unlock through
// the same handle: Unlock still checks ownership in Redis, so it answers
// truthfully (ok if the hold survived, not-owner if the lease ran out).
// Renewal does not resume, but the process unlocks right after its write.
// Model consequence: the stalled process stays live, so a grant to another
// process during a stall longer than the lease is reported as a violation
// (the known-unsafe stall scenario), with the stall window overlapping it.
//
// Crash cancels every op of the worker's current process (those in flight
// end as info), abandons its handles without unlocking (their holds run out
// within one lease; an external driver's process is SIGKILLed), records a
// model.Abandon op unless an info op already retired it, and starts a new
// process id on the same worker.
//
// Owners that share a client process (Plan.ThreadsPerProcess > 1) share its
// faults: a target names one worker, and a crash crashes every worker of its
// client process, whose replacements start in a new client process (a new
// Op.Client). A stall freezes the target when it holds, as above; an
// external driver's SIGSTOP stops every owner in the process with it (their
// requests in flight wait, and the time stopped does not count against
// them), while the other goroutines of a Go lock's process go on. Either
// way the fault's window lists every owner of the process (Fault.Procs).
type clients struct{ r *runner }

var (
	_ faults.Clients      = clients{}
	_ faults.ClientPauser = clients{}
)

func (c clients) Targets() []string {
	out := make([]string, len(c.r.workers))
	for i, w := range c.r.workers {
		out[i] = w.name
	}
	return out
}

// WorkerOf returns the index of the worker whose current process is p: a
// replacement's id names no worker by itself, and a retired process's
// names none any more (false).
func (c clients) WorkerOf(p int) (int, bool) {
	for i, w := range c.r.workers {
		if int(w.pid.Load()) == p {
			return i, true
		}
	}
	return 0, false
}

func (c clients) worker(target string) (*worker, error) {
	for _, w := range c.r.workers {
		if w.name == target {
			return w, nil
		}
	}
	return nil, fmt.Errorf("workloads: no client %q (targets: %v)", target, c.Targets())
}

func (c clients) Stall(ctx context.Context, target string) error {
	w, err := c.worker(target)
	if err != nil {
		return err
	}
	if c.r.pauses != nil {
		return c.realStall(ctx, w, aimHold)
	}
	return w.awaitStall(ctx, newStallReq())
}

// awaitStall makes s w's stall (or joins the one pending or active) and
// waits until w froze, or ctx ended: then it lets w run on, and the
// error wraps faults.ErrNotReached when w never froze.
func (w *worker) awaitStall(ctx context.Context, s *stallReq) error {
	w.mu.Lock()
	if w.exited {
		w.mu.Unlock()
		return errWorkerStopped
	}
	if w.stall != nil {
		s = w.stall
	}
	w.stall = s
	w.mu.Unlock()
	select {
	case <-s.frozen:
		return s.err
	case <-ctx.Done():
		ended := s.end(ctx.Err())
		w.clearStall(s)
		if !ended {
			s.thaw() // it froze meanwhile: let it run
			return ctx.Err()
		}
		return fmt.Errorf("%w: %w", faults.ErrNotReached, ctx.Err())
	}
}

func (c clients) Unstall(_ context.Context, target string) error {
	w, err := c.worker(target)
	if err != nil {
		return err
	}
	w.unstall()
	return nil
}

func (c clients) Crash(ctx context.Context, target string) error {
	w, err := c.worker(target)
	if err != nil {
		return err
	}
	var done []chan struct{}
	if c.r.grouped() {
		done = c.r.crashGroup(w.g, w.g.client.Load(), nil)
	} else if d := w.requestCrash(); d != nil {
		done = append(done, d)
	}
	for _, d := range done {
		select {
		case <-d:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// requestCrash asks w to crash its current process (cancelling its ops in
// flight) and returns what closes once it did; nil when the run is over for
// w.
func (w *worker) requestCrash() chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.exited {
		return nil // the run is over: nothing left to crash
	}
	cr := w.crash
	if cr == nil {
		cr = &crashReq{done: make(chan struct{})}
		w.crash = cr
		w.procC(errCrashed)
	}
	return cr.done
}
