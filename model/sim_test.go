package model

import (
	"fmt"
	"math/rand/v2"
)

// A sequential reference simulation of a correct reentrant lock service,
// used to generate histories that must be valid: every op takes effect at a
// linearization point inside its [call, return] interval, in an order a
// correct lock allows. Waiters call long before they are granted (blocking
// acquires that wait while others hold), owners re-enter, others' TryLocks
// fail while the lock is held, and some ops end as info (a timeout after the
// request took effect or not), retiring their process.

type simConfig struct {
	locks    int     // lock names
	procs    int     // processes per lock (the pool; retired ones are replaced)
	ops      int     // stop once the history has at least this many ops
	infoRate float64 // probability that an acquire or release ends as info
	sections bool    // record critical sections on a fenced register
}

// window is a span during which a live process definitely held a lock.
type window struct {
	lock     string
	from, to int64
}

type simLock struct {
	name     string
	t        int64   // linearization cursor
	busy     []int64 // per pool slot: the slot's process is busy until then
	id       []int   // per pool slot: process id
	token    int64
	register int64
}

type sim struct {
	r       *rand.Rand
	cfg     simConfig
	h       History
	next    int // next process id
	windows []window
}

const us = int64(1000) // one microsecond, in ns

func simulate(r *rand.Rand, cfg simConfig) (*History, []window) {
	s := &sim{r: r, cfg: cfg}
	locks := make([]*simLock, cfg.locks)
	for i := range locks {
		l := &simLock{name: fmt.Sprintf("lock-%02d", i), t: r.Int64N(50 * us)}
		for range cfg.procs {
			l.id = append(l.id, s.newProc())
			l.busy = append(l.busy, 0)
		}
		locks[i] = l
	}
	for len(s.h.Ops) < cfg.ops {
		s.hold(locks[r.IntN(len(locks))])
	}
	return &s.h, s.windows
}

func (s *sim) newProc() int { s.next++; return s.next - 1 }

func (s *sim) rnd(lo, hi int64) int64 { return lo + s.r.Int64N(hi-lo+1) }

func (s *sim) add(o Op) { s.h.Ops = append(s.h.Ops, o) }

// retire replaces the process in slot i by a fresh one, busy until t.
func (s *sim) retire(l *simLock, i int, t int64) {
	l.id[i] = s.newProc()
	l.busy[i] = t
}

// free picks a pool slot whose process is idle before t (-1: none).
func (s *sim) free(l *simLock, t int64, except int) int {
	start := s.r.IntN(len(l.id))
	for k := range l.id {
		i := (start + k) % len(l.id)
		if i != except && l.busy[i] < t {
			return i
		}
	}
	return -1
}

// hold simulates one hold of lock l: a grant, the owner's reentrant
// acquires and critical sections, others' failing TryLocks, and the release.
func (s *sim) hold(l *simLock) {
	g := l.t + s.rnd(1, 20*us) // grant linearization point
	o := s.free(l, g-1, -1)
	if o < 0 {
		l.t = g
		return
	}
	p := l.id[o]
	lease := int64(0) // watchdog
	if s.r.IntN(2) == 0 {
		lease = 10_000 * us // 10 ms, far longer than any hold here
	}
	// The acquire was issued up to ~3 holds earlier: it waited while others held.
	call := max(l.busy[o]+1, g-s.rnd(1, 400*us))
	ret := g + s.rnd(1, 10*us)
	a := Op{Process: p, Lock: l.name, Kind: Acquire, Call: call, Return: ret, Lease: lease, Blocking: true, Outcome: OK}
	l.token++
	token := l.token
	a.Token = token
	info := s.r.Float64() < s.cfg.infoRate
	if info {
		a.Outcome, a.Token, a.Error = Info, 0, "i/o timeout"
	}
	s.add(a)
	end := g + s.rnd(20*us, 150*us) // the hold ends (release or, if retired, expiry) here
	cur := ret
	if info {
		s.retire(l, o, ret)
	} else {
		defFrom := ret
		// the owner re-enters and works
		for stop := false; !stop && cur+10*us < end-5*us; {
			switch s.r.IntN(3) {
			case 0: // reentrant pair
				c1 := cur + s.rnd(1, 2*us)
				r1 := c1 + s.rnd(1, 3*us)
				c2 := r1 + s.rnd(1, 2*us)
				r2 := c2 + s.rnd(1, 3*us)
				if r2 >= end-5*us {
					stop = true
					break
				}
				s.add(Op{Process: p, Lock: l.name, Kind: Acquire, Call: c1, Return: r1, Lease: lease, Token: token, Outcome: OK})
				s.add(Op{Process: p, Lock: l.name, Kind: Release, Call: c2, Return: r2, Outcome: OK})
				cur = r2
			case 1: // critical section
				c := cur + s.rnd(1, 2*us)
				r := c + s.rnd(1, 5*us)
				if r >= end-5*us {
					stop = true
					break
				}
				if s.cfg.sections {
					l.register++
					s.add(Op{Process: p, Lock: l.name, Kind: Section, Call: c, Return: r, Token: token,
						Read: l.register - 1, Write: l.register, Seq: l.register, Outcome: OK})
				}
				cur = r
			default:
				cur += s.rnd(1, 5*us)
			}
		}
		rc := max(cur+1, end-s.rnd(1, 5*us))
		rr := max(end, rc) + s.rnd(1, 5*us)
		rl := Op{Process: p, Lock: l.name, Kind: Release, Call: rc, Return: rr, Outcome: OK}
		if s.r.Float64() < s.cfg.infoRate {
			rl.Outcome, rl.Error = Info, "EOF"
			s.add(rl)
			s.retire(l, o, rr)
		} else {
			s.add(rl)
			l.busy[o] = rr
			s.windows = append(s.windows, window{l.name, defFrom, rc})
		}
		cur = rr
	}
	if !info {
		l.busy[o] = max(l.busy[o], cur)
	}
	// Others try while the lock is held (linearized inside (g, end)) or send
	// a request that times out without taking effect, or release what they
	// do not hold.
	for range s.r.IntN(3) {
		q := s.free(l, g+1, o)
		if q < 0 {
			break
		}
		c := max(l.busy[q]+1, g+1)
		if c >= end-2 {
			break
		}
		r := c + s.rnd(1, min(20*us, end-1-c))
		switch k := s.r.IntN(10); {
		case k < 6:
			s.add(Op{Process: l.id[q], Lock: l.name, Kind: Acquire, Call: c, Return: r, Wait: r - c, Lease: lease, Outcome: Fail})
			l.busy[q] = r
		case k < 8:
			s.add(Op{Process: l.id[q], Lock: l.name, Kind: Release, Call: c, Return: r, Outcome: Fail, Error: "not owner"})
			l.busy[q] = r
		default:
			if s.r.Float64() < s.cfg.infoRate*4 {
				s.add(Op{Process: l.id[q], Lock: l.name, Kind: Acquire, Call: c, Return: r, Lease: lease, Blocking: true, Outcome: Info, Error: "context deadline exceeded"})
				s.retire(l, q, r)
			}
		}
	}
	l.t = end
}

// injectDoubleGrant adds, inside a window where a live process definitely
// held the lock, an ok acquire by a fresh process: a history that no correct
// lock can produce.
func injectDoubleGrant(r *rand.Rand, h *History, ws []window) (*History, bool) {
	return injectInWindow(r, h, ws, func(p int, lock string, call, ret int64) Op {
		return Op{Process: p, Lock: lock, Kind: Acquire, Call: call, Return: ret, Blocking: true, Outcome: OK}
	})
}

// injectInWindow adds the op mk makes, by a fresh process, inside a window
// where a live process held the lock.
func injectInWindow(r *rand.Rand, h *History, ws []window, mk func(p int, lock string, call, ret int64) Op) (*History, bool) {
	var cands []window
	for _, w := range ws {
		if w.to-w.from >= 3 {
			cands = append(cands, w)
		}
	}
	if len(cands) == 0 {
		return h, false
	}
	w := cands[r.IntN(len(cands))]
	c := w.from + 1 + r.Int64N(w.to-w.from-2)
	ret := c + 1 + r.Int64N(w.to-c-1)
	fresh := 0
	for _, o := range h.Ops {
		fresh = max(fresh, o.Process+1)
	}
	out := *h
	out.Ops = append(append([]Op(nil), h.Ops...), mk(fresh, w.lock, c, ret))
	return &out, true
}

func infoShare(h *History) float64 {
	n := 0
	for _, o := range h.Ops {
		if o.Outcome == Info {
			n++
		}
	}
	return float64(n) / float64(len(h.Ops))
}
