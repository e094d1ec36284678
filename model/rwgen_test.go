package model

import (
	"fmt"

	"pgregory.net/rapid"
)

// A rapid generator of read-write lock histories for the differential
// tests, in the manner of diffgen_test.go but simpler: the ground truth is
// a correct read-write lock (shared reads, exclusive write, reentry on both
// sides, downgrade, no upgrade) whose ops take effect at the step's instant,
// inside their intervals, in the order the ground truth applied them. Holds
// of a live process end only through its releases (leases are the watchdog
// or longer than the run); a retired process's holds vanish at a drawn
// instant no later than one lease after its last request could reach the
// server. Expire ops are not generated (the fuzz target makes them).

// rwTruth is the ground truth of one read-write lock.
type rwTruth struct {
	name    string
	writer  int // -1: none
	wcount  int
	reads   map[int]int
	leases  [2]map[int]int64 // longest lease among a live process's holds of each side (0 read, 1 write)
	retired []rwRetired
}

// rwRetired is a retired hold: it blocks until vanish.
type rwRetired struct {
	vanish int64
	write  bool
}

func (l *rwTruth) blocked(p int, write bool, now int64) bool {
	if l.writer >= 0 && l.writer != p {
		return true
	}
	for _, r := range l.retired {
		if r.vanish >= now && (write || r.write) {
			return true
		}
	}
	if !write {
		return false
	}
	for q, n := range l.reads {
		if n > 0 && (q != p || l.writer != p) {
			return true // another reader, or p itself asking to upgrade
		}
	}
	return false
}

type rwGen struct {
	t        *rapid.T
	watchdog int64
	locks    []*rwTruth
	slots    []gtSlot
	next     int
	ops      []Op
	now      int64
}

// genRWHistory draws a read-write lock history and whether it was
// perturbed (false: valid by construction).
func genRWHistory(t *rapid.T, maxSteps, maxLocks int, doPerturb bool) (*History, Options, bool) {
	g := &rwGen{t: t, watchdog: rapid.SampledFrom([]int64{60, 400, 5000}).Draw(t, "watchdog")}
	for i := range rapid.IntRange(1, maxLocks).Draw(t, "locks") {
		g.locks = append(g.locks, &rwTruth{name: fmt.Sprintf("RW%d", i), writer: -1, reads: map[int]int{}, leases: [2]map[int]int64{{}, {}}})
	}
	for range rapid.IntRange(2, 4).Draw(t, "procs") {
		g.slots = append(g.slots, gtSlot{id: g.newProc()})
	}
	for range rapid.IntRange(1, maxSteps).Draw(t, "steps") {
		g.step()
	}
	h := &History{Ops: g.ops}
	if err := h.Validate(); err != nil {
		t.Fatalf("ground truth recorded a malformed history: %v\n%s", err, dumpHistory(h))
	}
	opts := Options{WatchdogLease: durNs(g.watchdog), MaxSegmentOps: -1}
	perturbed := false
	if doPerturb {
		for range rapid.IntRange(0, 2).Draw(t, "perturbations") {
			perturbed = perturb(t, h) || perturbed
		}
		if rapid.IntRange(0, 3).Draw(t, "flipMode") == 0 && len(h.Ops) > 0 {
			o := &h.Ops[rapid.IntRange(0, len(h.Ops)-1).Draw(t, "modeVictim")]
			if o.Mode == ModeRead {
				o.Mode = ModeWrite
			} else {
				o.Mode = ModeRead
			}
			perturbed = true
		}
	}
	return h, opts, perturbed
}

func (g *rwGen) newProc() int { g.next++; return g.next - 1 }

func (g *rwGen) step() {
	g.now += int64(rapid.IntRange(1, 20).Draw(g.t, "gap"))
	var idle []int
	for i, s := range g.slots {
		if s.busy < g.now-5 {
			idle = append(idle, i)
		}
	}
	if len(idle) == 0 {
		return
	}
	si := idle[rapid.IntRange(0, len(idle)-1).Draw(g.t, "slot")]
	l := g.locks[rapid.IntRange(0, len(g.locks)-1).Draw(g.t, "lock")]
	p := g.slots[si].id
	call := g.now - int64(rapid.IntRange(0, min(5, int(g.now-g.slots[si].busy-1))).Draw(g.t, "before"))
	ret := g.now + int64(rapid.IntRange(0, 5).Draw(g.t, "after"))
	g.slots[si].busy = ret
	o := Op{Process: p, Lock: l.name, Call: call, Return: ret, Mode: ModeRead}
	if rapid.Bool().Draw(g.t, "write") {
		o.Mode = ModeWrite
	}
	switch rapid.IntRange(0, 9).Draw(g.t, "action") {
	case 0:
		g.abandon(si, o)
	case 1, 2, 3, 4:
		g.release(si, l, o)
	default:
		g.acquire(si, l, o)
	}
}

func (g *rwGen) acquire(si int, l *rwTruth, o Op) {
	o.Kind = Acquire
	if rapid.Bool().Draw(g.t, "explicitLease") {
		o.Lease = 1 << 40 // outlasts the run: holds end only by release
	}
	lease := o.Lease
	if lease <= 0 {
		lease = g.watchdog
	}
	write := o.Mode == ModeWrite
	ok := !l.blocked(o.Process, write, g.now)
	switch rapid.IntRange(0, 9).Draw(g.t, "acqOutcome") {
	case 0: // cancelled by its caller: fails whatever the state
		o.Cancelled, o.Outcome = true, Fail
	case 1: // unknown: it took effect if it could, or did not
		o.Outcome = Info
		o.Deadline = o.Return + int64(rapid.IntRange(0, 30).Draw(g.t, "deadline"))
		if ok && rapid.Bool().Draw(g.t, "infoApplied") {
			g.grant(l, o.Process, write, lease)
		}
		g.retire(si, o.Deadline)
	default:
		o.Outcome = Fail
		if ok {
			o.Outcome = OK
			g.grant(l, o.Process, write, lease)
		}
	}
	g.ops = append(g.ops, o)
}

func (g *rwGen) grant(l *rwTruth, p int, write bool, lease int64) {
	side := 0
	if write {
		l.writer = p
		l.wcount++
		side = 1
	} else {
		l.reads[p]++
	}
	l.leases[side][p] = max(l.leases[side][p], lease)
}

func (g *rwGen) release(si int, l *rwTruth, o Op) {
	o.Kind = Release
	p := o.Process
	mine := l.reads[p] > 0
	if o.Mode == ModeWrite {
		mine = l.writer == p
	}
	o.Outcome = Fail
	if mine {
		o.Outcome = OK
		if rapid.IntRange(0, 7).Draw(g.t, "releaseInfo") == 0 {
			o.Outcome = Info
			o.Deadline = o.Return + int64(rapid.IntRange(0, 30).Draw(g.t, "deadline"))
		}
		if o.Outcome == OK || rapid.Bool().Draw(g.t, "infoApplied") {
			g.unhold(l, p, o.Mode == ModeWrite)
		}
	}
	g.ops = append(g.ops, o)
	if o.Outcome == Info {
		g.retire(si, o.Deadline)
	}
}

func (g *rwGen) unhold(l *rwTruth, p int, write bool) {
	if write {
		if l.wcount--; l.wcount == 0 {
			l.writer = -1
			delete(l.leases[1], p)
		}
	} else if l.reads[p]--; l.reads[p] == 0 {
		delete(l.reads, p)
		delete(l.leases[0], p)
	}
}

// abandon retires the slot's process now: its Abandon op is recorded at
// g.now, from which retire lets its holds vanish (recorded later, the
// holds of a process the history shows alive would vanish under it).
func (g *rwGen) abandon(si int, o Op) {
	o.Kind, o.Outcome, o.Mode = Abandon, OK, ""
	o.Call, o.Return = g.now, g.now
	g.ops = append(g.ops, o)
	g.retire(si, o.Return)
}

// retire makes the slot's process's holds on every lock retired holds
// that vanish at a drawn instant within one lease of deadline, and gives
// the slot a fresh process.
func (g *rwGen) retire(si int, deadline int64) {
	p := g.slots[si].id
	for _, l := range g.locks {
		vanish := func(side int) int64 {
			return g.now + rapid.Int64Range(0, max(deadline+l.leases[side][p]-g.now, 0)).Draw(g.t, "vanish")
		}
		if l.writer == p {
			l.retired = append(l.retired, rwRetired{vanish: vanish(1), write: true})
			l.writer, l.wcount = -1, 0
		}
		if l.reads[p] > 0 {
			l.retired = append(l.retired, rwRetired{vanish: vanish(0)})
			delete(l.reads, p)
		}
		delete(l.leases[0], p)
		delete(l.leases[1], p)
	}
	g.slots[si] = gtSlot{id: g.newProc(), busy: max(g.slots[si].busy, deadline)}
}
