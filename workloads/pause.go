package workloads

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
)

// Where a process pause lands (faults.PauseAimHold, PauseAimRelease).
const (
	// aimHold: inside the critical section, at a moment drawn within its
	// first third of a lease (the section's end at the latest), or at the
	// first reply its client gets from Redis before that (a renewal's),
	// whichever comes first.
	aimHold = faults.PauseAimHold
	// aimRelease: inside its release: at the reply to the first command
	// its client sends once the release began (an unlock's first
	// command, or a renewal in flight), or, without a Wire, a draw of up
	// to a millisecond into the call.
	aimRelease = faults.PauseAimRelease
)

// pauser draws where the process pauses of a PausesProcess run land. Its
// draws come from the run's seed, one stall after the other.
type pauser struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newPauser(seed int64) *pauser {
	return &pauser{rng: rand.New(rand.NewPCG(uint64(seed), 0x9A05E5))}
}

// draw returns where the next pause lands (aim, or one of the two drawn
// when aim is "") and how far into its span, a fraction in [0, 1): the
// span is the section's first third of a lease for aimHold (see
// pauseDelay), a millisecond for aimRelease.
func (p *pauser) draw(aim string) (string, float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if aim == "" {
		aim = aimHold
		if p.rng.IntN(2) == 1 {
			aim = aimRelease
		}
	}
	return aim, p.rng.Float64()
}

// pauseDelay is how long after its aim a pause drawn at frac lands: within
// the section (hold long) and its first third of a lease for aimHold,
// within a millisecond of the release's start for aimRelease.
func pauseDelay(aim string, frac float64, hold, lease time.Duration) time.Duration {
	span := time.Millisecond
	if aim == aimHold {
		span = max(min(hold, lease/3), time.Millisecond)
	}
	return time.Duration(frac * float64(span))
}

// PauseClient pauses target's process where aim says (faults.PauseAim*;
// "": drawn from the seed), until Unstall: see realStall. A run without
// process pauses stalls target as Stall does.
func (c clients) PauseClient(ctx context.Context, target, aim string) error {
	w, err := c.worker(target)
	if err != nil {
		return err
	}
	if c.r.pauses == nil {
		return c.Stall(ctx, target)
	}
	return c.realStall(ctx, w, aim)
}

// realStall is a process pause of target w: it waits until w holds a lock
// (the worker reaches the stall point of its section), draws where the
// pause lands (aim, or drawn when ""), stops w's lock client there
// (impl.Freezer: SIGSTOP of its process, wherever its threads are) and
// returns. The worker itself stops at its next step (pausedWait) until
// Unstall, so the application and its lock client pause together.
func (c clients) realStall(ctx context.Context, w *worker, aim string) error {
	s := newStallReq()
	s.real = true
	s.aim, s.frac = c.r.pauses.draw(aim)
	return w.awaitStall(ctx, s)
}

// pauseAt is called by w's goroutine where a real stall may land: at its
// section's stall point (holding, for a section of hold) and as its
// release begins (releasing). It arms the pause the stall drew, if it
// aims there.
func (w *worker) pauseAt(h impl.Locker, releasing bool, hold time.Duration) {
	w.mu.Lock()
	s := w.stall
	w.mu.Unlock()
	if s == nil || !s.real || s.armed.Load() {
		return
	}
	f, ok := h.(impl.Freezer)
	if !ok {
		return
	}
	switch {
	case !releasing && s.aim == aimHold, releasing && s.aim == aimRelease:
		s.armed.Store(true)
		w.armPause(s, f, pauseDelay(s.aim, s.frac, hold, w.r.watchdogLease))
	}
}

// armPause makes s pause f's process at the first reply w's client gets
// from now on, or after d, whichever comes first.
func (w *worker) armPause(s *stallReq, f impl.Freezer, d time.Duration) {
	pause := func() {
		s.freeze(func() {
			_ = f.Freeze()
			s.thawWith(f.Thaw)
		})
	}
	var disarm func() bool
	if wire := w.r.wireOf(w); wire != nil {
		disarm = wire.PauseAtReply(faults.NotSubscribe, pause)
	}
	timer := time.AfterFunc(d, func() {
		if disarm == nil || !disarm() {
			pause() // no reply came first
		}
	})
	s.thawMu.Lock()
	s.stopTimer = func() {
		timer.Stop()
		if disarm != nil {
			disarm()
		}
	}
	s.fire = pause
	s.thawMu.Unlock()
}

// pausedWait blocks w's goroutine while its process is paused (a real
// stall that froze), until Unstall or a crash. A pause armed in the
// section that has not landed yet lands now: the section ends here.
func (w *worker) pausedWait() {
	w.mu.Lock()
	s := w.stall
	w.mu.Unlock()
	if s == nil || !s.real {
		return
	}
	if s.aim == aimHold && s.armed.Load() {
		s.thawMu.Lock()
		fire := s.fire
		s.thawMu.Unlock()
		if fire != nil {
			fire() // a no-op once it landed or the stall ended
		}
	}
	if !s.paused.Load() {
		return
	}
	select {
	case <-s.resume:
	case <-w.p.ctx.Done():
	}
}

// clearStall forgets s if it is still w's stall.
func (w *worker) clearStall(s *stallReq) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stall == s {
		w.stall = nil
	}
}

// wireOf is the proxy in front of w's client connection (nil: none).
func (r *runner) wireOf(w *worker) faults.ClientWire {
	if r.wire == nil || w.g.conn >= len(r.wire.wires) {
		return nil
	}
	return r.wire.wires[w.g.conn]
}

// realStallState is what a stallReq carries for a process pause.
type realStallState struct {
	real      bool
	aim       string
	frac      float64 // where in its span the pause lands (pauseDelay)
	fire      func()  // lands the armed pause now (set once armed)
	armed     atomic.Bool
	paused    atomic.Bool
	stopTimer func()
	thawMu    sync.Mutex
	thawFn    func() error // set once the process is stopped
}

// thawWith records how to continue the stopped process, and that it is.
func (s *stallReq) thawWith(thaw func() error) {
	s.thawMu.Lock()
	s.thawFn = thaw
	s.thawMu.Unlock()
	s.paused.Store(true)
}

// Note: a pause that springs after thaw (its reply came late) finds the
// request ended (freeze reports false) and stops nothing.

// thaw continues the stopped process, if any, and lets the worker go on.
// It is idempotent.
func (s *stallReq) thaw() {
	s.thawMu.Lock()
	stop, thaw := s.stopTimer, s.thawFn
	s.stopTimer, s.thawFn, s.fire = nil, nil, nil
	s.thawMu.Unlock()
	if stop != nil {
		stop()
	}
	if thaw != nil {
		_ = thaw()
	}
	s.unstall()
}
