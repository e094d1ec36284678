package model

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Modes of an Op on a read-write lock (Op.Mode). The empty mode is the
// exclusive lock of every other lock kind; on a lock that has ops with a
// mode, an op without one counts as a write.
const (
	ModeRead  = "read"
	ModeWrite = "write"
)

// The read-write lock's sequential specification (Redisson's RReadWriteLock)
// shares lockState with the mutex: the write side is Held/Owner/Count/Lease
// (Lease: the writer's longest lease), the live read holders with their
// counts and leases are Readers, and retired holds are bounded twice:
// RetiredUntil bounds retired read holds (they block writers),
// WRetiredUntil retired write holds (they block readers and writers).
//
//   - A read is granted unless another live process holds the write lock:
//     readers share; the write holder may take the read lock (downgrade).
//   - A write is granted only when no live process holds the lock in either
//     mode, except the writer itself re-entering: a read holder asking for
//     the write lock is refused (no upgrade), even when it is the only reader.
//   - Both sides are reentrant: an owner's acquire on a side it holds must
//     succeed. Releasing the write side keeps the owner's read holds (the
//     lock goes to read mode).
//   - A read acquire granted while a retired writer might hold means that
//     hold had vanished (WRetiredUntil is cleared); a retired reader may still
//     hold, so RetiredUntil stays. A write grant clears both.
//   - A retired process's holds of each side may last one lease (its
//     longest on that side, or that of an Info acquire) after its last
//     request could reach the server.

// readHolds is one live reader's holds: how many, and the longest lease
// among them.
type readHolds struct {
	n     int
	lease int64
}

// readers decodes s.Readers: process -> its read holds.
func (s lockState) readers() map[int]readHolds {
	m := map[int]readHolds{}
	if s.Readers == "" {
		return m
	}
	for _, f := range strings.Split(s.Readers, ",") {
		parts := strings.SplitN(f, ":", 3)
		p, _ := strconv.Atoi(parts[0])
		n, _ := strconv.Atoi(parts[1])
		l, _ := strconv.ParseInt(parts[2], 10, 64)
		m[p] = readHolds{n, l}
	}
	return m
}

// encodeReaders is the canonical (sorted) form of a reader map,
// "p:n:lease,...", so that equal states compare equal.
func encodeReaders(m map[int]readHolds) string {
	ps := make([]int, 0, len(m))
	for p, r := range m {
		if r.n > 0 {
			ps = append(ps, p)
		}
	}
	sort.Ints(ps)
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d:%d:%d", p, m[p].n, m[p].lease)
	}
	return b.String()
}

// writes reports whether an op of a read-write lock is on the write side.
func (in *stepInput) writes() bool { return in.op == nil || in.op.Mode != ModeRead }

// rwStep is step for the ops of a read-write lock.
func rwStep(s lockState, in *stepInput) (bool, lockState, refusal) {
	if in.init != nil {
		return true, *in.init, noRefusal
	}
	if s.RetiredUntil != 0 && s.RetiredUntil < in.call {
		s.RetiredUntil = 0
	}
	if s.WRetiredUntil != 0 && s.WRetiredUntil < in.call {
		s.WRetiredUntil = 0
	}
	rd := s.readers()
	p := in.process
	writer := s.Held && s.Owner == p
	switch in.kind {
	case Acquire:
		return rwAcquire(s, rd, in, writer)
	case Release:
		mine := writer
		if !in.writes() {
			mine = rd[p].n > 0
		}
		switch in.outcome {
		case OK:
			if !mine {
				return false, s, releasedNotHeld
			}
			return true, rwReleased(s, rd, in), noRefusal
		case Fail:
			if mine {
				return false, s, ownerToldNotOwner
			}
			return true, s, noRefusal
		case Info:
			return true, rwRetire(s, rd, in, 0, false), noRefusal
		}
	case Abandon:
		return true, rwRetire(s, rd, in, 0, false), noRefusal
	case Expire:
		return true, rwDrop(s, rd, p), noRefusal
	}
	return false, s, unexpectedOp
}

func rwAcquire(s lockState, rd map[int]readHolds, in *stepInput, writer bool) (bool, lockState, refusal) {
	p := in.process
	if in.writes() {
		blocked := (s.Held && !writer) || (!writer && len(rd) > 0)
		switch in.outcome {
		case OK:
			if blocked {
				return false, s, grantedWhileHeld
			}
			if !writer {
				s.Held, s.Owner, s.Count, s.Lease = true, p, 0, 0
			}
			s.Count++
			s.Lease = max(s.Lease, in.lease)
			s.RetiredUntil, s.WRetiredUntil = 0, 0
			return true, s, noRefusal
		case Fail:
			switch {
			case in.cancelled:
				return true, s, noRefusal
			case writer:
				return false, s, reentrantFailed
			case blocked || s.RetiredUntil != 0 || s.WRetiredUntil != 0 || in.contended:
				return true, s, noRefusal
			}
			return false, s, failedWhileFree
		case Info:
			if blocked {
				return true, rwRetire(s, rd, in, 0, false), noRefusal // could not take effect
			}
			return true, rwRetire(s, rd, in, in.lease, true), noRefusal
		}
		return false, s, unexpectedOp
	}
	blocked := s.Held && !writer
	switch in.outcome {
	case OK:
		if blocked {
			return false, s, grantedWhileHeld
		}
		rd[p] = readHolds{rd[p].n + 1, max(rd[p].lease, in.lease)}
		s.Readers = encodeReaders(rd)
		s.WRetiredUntil = 0
		return true, s, noRefusal
	case Fail:
		switch {
		case in.cancelled:
			return true, s, noRefusal
		case writer || rd[p].n > 0:
			return false, s, reentrantFailed
		case blocked || s.WRetiredUntil != 0 || in.contended:
			return true, s, noRefusal
		}
		return false, s, failedWhileFree
	case Info:
		if blocked {
			return true, rwRetire(s, rd, in, 0, false), noRefusal // could not take effect
		}
		return true, rwRetire(s, rd, in, in.lease, false), noRefusal // one more read hold, perhaps
	}
	return false, s, unexpectedOp
}

// rwReleased ends one hold of in's side of in's process.
func rwReleased(s lockState, rd map[int]readHolds, in *stepInput) lockState {
	if in.writes() {
		if s.Count--; s.Count == 0 {
			s.Held, s.Owner, s.Lease = false, 0, 0
		}
		return s
	}
	r := rd[in.process]
	r.n--
	rd[in.process] = r
	s.Readers = encodeReaders(rd)
	return s
}

// rwRetire retires in's process: its holds, and perhaps one more of
// extraLease (an Info acquire; a write hold when extraWrite), may last until
// one lease after its last request could reach the server. A process that
// holds nothing and takes nothing leaves s as it is.
func rwRetire(s lockState, rd map[int]readHolds, in *stepInput, extraLease int64, extraWrite bool) lockState {
	p := in.process
	if s.Held && s.Owner == p {
		s.WRetiredUntil = max(s.WRetiredUntil, in.deadline+s.Lease)
	}
	if extraWrite {
		s.WRetiredUntil = max(s.WRetiredUntil, in.deadline+extraLease)
	} else if extraLease > 0 {
		s.RetiredUntil = max(s.RetiredUntil, in.deadline+extraLease)
	}
	if rd[p].n > 0 {
		s.RetiredUntil = max(s.RetiredUntil, in.deadline+rd[p].lease)
	}
	return rwDrop(s, rd, p)
}

// rwDrop ends every hold of p.
func rwDrop(s lockState, rd map[int]readHolds, p int) lockState {
	if s.Held && s.Owner == p {
		s.Held, s.Owner, s.Count, s.Lease = false, 0, 0, 0
	}
	delete(rd, p)
	s.Readers = encodeReaders(rd)
	return s
}

// rwWhy renders a refusal of in in state s of a read-write lock.
func rwWhy(r refusal, s lockState, in *stepInput) string {
	p, side := in.process, "write"
	if !in.writes() {
		side = "read"
	}
	switch r {
	case grantedWhileHeld:
		return fmt.Sprintf("p%d was granted the %s lock while it was %s", p, side, describeState(s))
	case reentrantFailed:
		return fmt.Sprintf("p%d failed to take the %s lock while it held the lock (a reentrant or downgrading acquire must succeed; %s)", p, side, describeState(s))
	case failedWhileFree:
		return fmt.Sprintf("p%d failed to take the %s lock while no one could hold it against it (%s)", p, side, describeState(s))
	case releasedNotHeld:
		return fmt.Sprintf("p%d released a %s hold it did not have (%s)", p, side, describeState(s))
	case ownerToldNotOwner:
		return fmt.Sprintf("p%d was told it held no %s hold while it held one (%s)", p, side, describeState(s))
	}
	return why(r, s, &stepInput{process: p, kind: in.kind, outcome: in.outcome})
}

// describeReaders renders the live readers, e.g. "read by p1 ×2, p3 ×1".
func describeReaders(s lockState) string {
	rd := s.readers()
	ps := make([]int, 0, len(rd))
	for p := range rd {
		ps = append(ps, p)
	}
	sort.Ints(ps)
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("p%d ×%d", p, rd[p].n)
	}
	return "read by " + strings.Join(parts, ", ")
}

// modeTag renders an op's mode for descriptions: " read", " write" or "".
func modeTag(o *Op) string {
	if o.Mode == "" {
		return ""
	}
	return " " + o.Mode
}
