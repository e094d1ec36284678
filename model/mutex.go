package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// lockState is the sequential state of one lock: a reentrant, owner-aware
// mutex whose live owner holds Count holds, plus the bound on holds that
// retired processes may still have.
//
// Holds of live processes end only through their own release, or through
// an Expire op (a lease let run out on purpose, at an instant within the
// op's interval). A hold of a
// retired process (taken by an Info acquire, or held when its process was
// retired) may vanish at any moment (its lease ran out) and must have
// vanished by RetiredUntil. Because such holds only ever vanish, "some
// retired process may still hold the lock until T" is all the model needs to
// remember of them: a fail acquire is explained by one of them while T has
// not passed, and an ok acquire makes them all vanish first. Time comes in
// through the input (the op's call time), so Step stays pure.
//
// Invariant: Held implies RetiredUntil == 0 (a live grant makes retired holds
// vanish, and nothing can take effect while a live owner holds).
type lockState struct {
	Held         bool
	Owner        int   // live owner's process, when Held
	Count        int   // holds of the live owner
	Lease        int64 // longest effective lease among the owner's holds
	RetiredUntil int64 // 0, or until when a retired process may still hold

	// Read-write locks only (rwlock.go): the live read holders, encoded
	// (encodeReaders), and until when a retired write hold may remain.
	Readers       string
	WRetiredUntil int64
}

// stepInput is the porcupine Input of one op of one lock's segment.
type stepInput struct {
	src       int // index in History.Ops; -1 for synthetic ops
	kind      Kind
	outcome   Outcome
	process   int
	call      int64
	deadline  int64 // latest time an Info op may take effect
	lease     int64 // effective lease of an Acquire
	contended bool  // fair lock: another request was in flight during a fail acquire
	cancelled bool  // the caller cancelled the acquire: a fail needs no holder
	rw        bool  // an op of a read-write lock: rwStep specifies it
	init      *lockState
	op        *Op // the recorded op (nil for synthetic ops)
}

// refusal says why step refused an op (noRefusal when it did not).
type refusal uint8

const (
	noRefusal refusal = iota
	grantedWhileHeld
	reentrantFailed
	failedWhileFree
	releasedNotHeld
	ownerToldNotOwner
	unexpectedOp
)

// why renders a refusal of in in state s.
func why(r refusal, s lockState, in *stepInput) string {
	if in.rw {
		return rwWhy(r, s, in)
	}
	p := in.process
	switch r {
	case grantedWhileHeld:
		return fmt.Sprintf("p%d was granted the lock while live p%d held it", p, s.Owner)
	case reentrantFailed:
		return fmt.Sprintf("p%d failed to re-acquire a lock it held (reentrant acquire must succeed)", p)
	case failedWhileFree:
		return fmt.Sprintf("p%d failed to acquire a free lock (no one held it or could have held it)", p)
	case releasedNotHeld:
		return fmt.Sprintf("p%d released a lock it did not hold (%s)", p, describeState(s))
	case ownerToldNotOwner:
		return fmt.Sprintf("p%d was told it was not the owner while it held %d hold(s)", p, s.Count)
	case unexpectedOp:
		return fmt.Sprintf("unexpected %s %s op", in.kind, in.outcome)
	}
	return ""
}

// step is the sequential specification. It returns whether the op can take
// effect in state s with its recorded outcome, the next state, and, when it
// cannot, why.
func step(s lockState, in *stepInput) (bool, lockState, refusal) {
	if in.rw {
		return rwStep(s, in)
	}
	if in.init != nil {
		return true, *in.init, noRefusal
	}
	if s.RetiredUntil != 0 && s.RetiredUntil < in.call {
		s.RetiredUntil = 0 // every retired hold must have run out by now
	}
	p := in.process
	retire := func(extraLease int64) lockState {
		// p is retired now: whatever it held (perhaps one more hold) may
		// vanish any time until one lease after its last request could
		// reach the server.
		return lockState{RetiredUntil: max(s.RetiredUntil, in.deadline+max(s.Lease, extraLease))}
	}
	switch in.kind {
	case Acquire:
		switch in.outcome {
		case OK:
			if s.Held {
				if s.Owner != p {
					return false, s, grantedWhileHeld
				}
				s.Count++
				s.Lease = max(s.Lease, in.lease)
				return true, s, noRefusal
			}
			return true, lockState{Held: true, Owner: p, Count: 1, Lease: in.lease}, noRefusal
		case Fail:
			switch {
			case in.cancelled:
				return true, s, noRefusal // may fail whatever the state, even the owner's reentry
			case s.Held && s.Owner == p:
				return false, s, reentrantFailed
			case s.Held, s.RetiredUntil != 0, in.contended:
				return true, s, noRefusal
			}
			return false, s, failedWhileFree
		case Info:
			if s.Held && s.Owner != p {
				return true, s, noRefusal // could not take effect; p held nothing
			}
			return true, retire(in.lease), noRefusal
		}
	case Release:
		mine := s.Held && s.Owner == p
		switch in.outcome {
		case OK:
			if !mine {
				return false, s, releasedNotHeld
			}
			if s.Count--; s.Count == 0 {
				return true, lockState{}, noRefusal
			}
			return true, s, noRefusal
		case Fail:
			if mine {
				return false, s, ownerToldNotOwner
			}
			return true, s, noRefusal
		case Info:
			if !mine {
				return true, s, noRefusal
			}
			return true, retire(0), noRefusal
		}
	case Abandon:
		if s.Held && s.Owner == p {
			return true, retire(0), noRefusal
		}
		return true, s, noRefusal
	case Expire:
		if s.Held && s.Owner == p {
			return true, lockState{}, noRefusal // the server dropped p's hold
		}
		return true, s, noRefusal // released before its lease ran out
	}
	return false, s, unexpectedOp
}

// mutexModel is the porcupine model over one lock segment (partitioning is
// done before porcupine sees the ops).
var mutexModel = porcupine.Model{
	Init: func() interface{} { return lockState{} },
	Step: func(state, input, _ interface{}) (bool, interface{}) {
		ok, next, _ := step(state.(lockState), input.(*stepInput))
		return ok, next
	},
	Equal: func(a, b interface{}) bool { return a.(lockState) == b.(lockState) },
	Hash: func(state interface{}) uint64 {
		s := state.(lockState)
		h := uint64(s.Owner)*0x9e3779b97f4a7c15 ^ uint64(s.Count)<<32 ^ uint64(s.Lease)*0xff51afd7ed558ccd ^ uint64(s.RetiredUntil)*0xc4ceb9fe1a85ec53
		if s.Held {
			h ^= 1
		}
		for i := 0; i < len(s.Readers); i++ {
			h = h*0x100000001b3 ^ uint64(s.Readers[i])
		}
		return h ^ uint64(s.WRetiredUntil)*0x94d049bb133111eb
	},
	DescribeOperation: func(input, _ interface{}) string { return describeInput(input.(*stepInput)) },
	DescribeState:     func(state interface{}) string { return describeState(state.(lockState)) },
	DescribeOperationMetadata: func(info interface{}) string {
		if info == nil {
			return ""
		}
		return fmt.Sprint(info)
	},
}

func describeInput(in *stepInput) string {
	if in.init != nil {
		return "state at split: " + describeState(*in.init)
	}
	if in.op == nil {
		return fmt.Sprintf("p%d retired (info op on another lock)", in.process)
	}
	o := in.op
	switch o.Kind {
	case Acquire:
		how := "blocking"
		if !o.Blocking {
			how = "wait " + fmtDur(o.Wait)
		}
		lease := "watchdog"
		if o.Lease > 0 {
			lease = "lease " + fmtDur(o.Lease)
		}
		s := fmt.Sprintf("p%d acquire%s(%s, %s) → %s", o.Process, modeTag(o), how, lease, o.Outcome)
		if o.Token != 0 {
			s += fmt.Sprintf(" token %d", o.Token)
		}
		return s
	case Release:
		return fmt.Sprintf("p%d release%s → %s", o.Process, modeTag(o), o.Outcome)
	default:
		return fmt.Sprintf("p%d %s", o.Process, o.Kind)
	}
}

func describeState(s lockState) string {
	switch {
	case s.Readers != "" && s.Held:
		return fmt.Sprintf("write-held by p%d ×%d and %s", s.Owner, s.Count, describeReaders(s))
	case s.Readers != "":
		return describeReaders(s)
	case s.Held:
		return fmt.Sprintf("held by p%d ×%d", s.Owner, s.Count)
	case s.RetiredUntil != 0:
		return fmt.Sprintf("free, or held by a retired process until %s at most", fmtTime(s.RetiredUntil))
	default:
		return "free"
	}
}
