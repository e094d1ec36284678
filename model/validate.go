package model

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// ErrInvalid is wrapped by every error of History.Validate and by
// ReadHistory's errors for records that parse but cannot occur in a real run
// (an op that returns before it is called, an unknown kind or outcome, a
// negative process, an unnamed lock, a fault that ends before it starts).
// Such a history is bad input, not a finding about the lock.
var ErrInvalid = errors.New("model: invalid history")

// MaxTime bounds every time and duration of a history (ns, about 2.3
// years): no run lasts longer, and sums of times and leases cannot
// overflow.
const MaxTime = int64(1) << 56

// validate checks what one op must satisfy on its own.
func (o *Op) validate() error {
	switch {
	case o.Call < 0:
		return fmt.Errorf("op called at a negative time (%d)", o.Call)
	case o.Return > MaxTime:
		return fmt.Errorf("op returns at %d, beyond any run (%d)", o.Return, MaxTime)
	case o.Return < o.Call:
		return fmt.Errorf("op returns (%d) before it is called (%d)", o.Return, o.Call)
	case o.Deadline != 0 && (o.Deadline < o.Call || o.Deadline > MaxTime):
		return fmt.Errorf("op's deadline (%d) is outside [call %d, %d]", o.Deadline, o.Call, MaxTime)
	case o.Enqueued != 0 && (o.Enqueued < o.Call || o.Enqueued > o.Return):
		return fmt.Errorf("op enqueued (%d) outside its call (%d) and return (%d)", o.Enqueued, o.Call, o.Return)
	case o.Lease > MaxTime || o.Lease < -MaxTime || o.Wait < 0 || o.Wait > MaxTime:
		return fmt.Errorf("op's lease (%d) or wait (%d) is out of range", o.Lease, o.Wait)
	case o.Process < 0:
		return fmt.Errorf("negative process id %d", o.Process)
	case o.Client < 0:
		return fmt.Errorf("negative client process %d", o.Client)
	case o.Lock == "":
		return errors.New("op names no lock")
	case o.Mode != "" && o.Mode != ModeRead && o.Mode != ModeWrite:
		return fmt.Errorf("unknown mode %q (want %q or %q)", o.Mode, ModeRead, ModeWrite)
	case o.Also != "":
		if err := o.validateAlso(); err != nil {
			return err
		}
	}
	switch o.Kind {
	case Acquire, Release, Abandon, Section, Expire:
	case SemAcquire, SemRelease, SemAdd, SemSet, PermitAcquire, PermitRelease, LatchSet, LatchCountDown, LatchAwait:
	default:
		return fmt.Errorf("unknown kind %q", o.Kind)
	}
	switch o.Outcome {
	case OK, Fail, Info:
	default:
		if o.Kind != Abandon || o.Outcome != "" {
			return fmt.Errorf("unknown outcome %q", o.Outcome)
		}
	}
	return nil
}

// validate checks one fault window.
func (f *Fault) validate() error {
	switch {
	case f.Name == "":
		return errors.New("fault names nothing")
	case f.Start < 0:
		return fmt.Errorf("fault %s starts at a negative time (%d)", f.Name, f.Start)
	case f.End != 0 && f.End < f.Start:
		return fmt.Errorf("fault %s ends (%d) before it starts (%d)", f.Name, f.End, f.Start)
	case f.End > MaxTime || f.Start > MaxTime:
		return fmt.Errorf("fault %s [%d, %d] lies beyond any run (%d)", f.Name, f.Start, f.End, MaxTime)
	}
	return nil
}

// validate checks the end record on its own.
func (e *End) validate() error {
	if e.At < 0 || e.At > MaxTime {
		return fmt.Errorf("end record at %d, outside [0, %d]", e.At, MaxTime)
	}
	return nil
}

// validateEnd checks every record against the end record: no op is called
// or returns after the run ended (an Expire's return, when the server let
// a hold run out, and an info op's deadline may lie later), and no fault
// starts or heals after it.
func (h *History) validateEnd() error {
	if h.End == nil {
		return nil
	}
	at := h.End.At
	if err := h.End.validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Call > at || (o.Return > at && o.Kind != Expire) {
			return fmt.Errorf("%w: %s: %v is after the end record (the run ended at %s)", ErrInvalid, h.where(i), *o, fmtTime(at))
		}
	}
	for i, f := range h.Faults {
		if f.Start > at || f.End > at {
			return fmt.Errorf("%w: %s: fault %v is after the end record (the run ended at %s)", ErrInvalid, h.whereFault(i), f, fmtTime(at))
		}
	}
	return nil
}

// where names op i for an error: its line when h was read from a file.
func (h *History) where(i int) string {
	if len(h.lines) == len(h.Ops) {
		return fmt.Sprintf("line %d", h.lines[i])
	}
	return fmt.Sprintf("op %d", i)
}

// whereFault names fault i for an error: its line when h was read from a
// file.
func (h *History) whereFault(i int) string {
	if len(h.faultLines) == len(h.Faults) {
		return fmt.Sprintf("line %d", h.faultLines[i])
	}
	return fmt.Sprintf("fault %d", i)
}

// Validate reports the first way in which h is not a well-formed history:
// an op that fails the per-record checks (see ErrInvalid), two ops of one
// process overlapping in time (Expire ops aside), an op of a process after it was retired,
// a fault window that ends before it starts, or a record later than the end
// record (see validateEnd). Every error wraps ErrInvalid
// and names the op's line when h was read by ReadHistory. A malformed
// history is a harness bug, not a finding about the lock.
func (h *History) Validate() error {
	for i := range h.Ops {
		if err := h.Ops[i].validate(); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, h.where(i), err)
		}
	}
	for i := range h.Faults {
		if err := h.Faults[i].validate(); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInvalid, h.whereFault(i), err)
		}
	}
	if err := h.validateEnd(); err != nil {
		return err
	}
	if h.processesInOrder() {
		return nil
	}
	return h.processesSorted()
}

// processesSorted checks each process's ops in call order (Expire aside):
// none after the op that retired it, one client process, one op at a time.
func (h *History) processesSorted() error {
	idx := make([]int32, 0, len(h.Ops))
	for i := range h.Ops {
		if h.Ops[i].Kind != Expire { // the server's act: it overlaps its process's ops
			idx = append(idx, int32(i))
		}
	}
	slices.SortFunc(idx, func(a, b int32) int { // by process, call, then history order (stable)
		oa, ob := &h.Ops[a], &h.Ops[b]
		return cmp.Or(cmp.Compare(oa.Process, ob.Process), cmp.Compare(oa.Call, ob.Call), cmp.Compare(a, b))
	})
	for i := 1; i < len(idx); i++ {
		p, o := &h.Ops[idx[i-1]], &h.Ops[idx[i]]
		switch {
		case p.Process != o.Process:
		case p.retires():
			return fmt.Errorf("%w: %s: process %d issued %v after it was retired by %v", ErrInvalid, h.where(int(idx[i])), o.Process, *o, *p)
		case o.Client != p.Client:
			return fmt.Errorf("%w: %s: process %d ran in client processes %d and %d", ErrInvalid, h.where(int(idx[i])), o.Process, p.Client, o.Client)
		case o.Call < p.Return:
			return fmt.Errorf("%w: %s: process %d runs two ops at once: %v and %v", ErrInvalid, h.where(int(idx[i])), o.Process, *p, *o)
		}
	}
	return nil
}

// processesInOrder reports, in one pass without sorting, whether every
// process's ops (Expire aside) come in call order in h.Ops, as a recorder
// that appends ops as they return writes them, and each follows the
// previous one as Validate requires. When it reports false, Validate sorts
// and names the first violation in process order, as ever.
func (h *History) processesInOrder() bool {
	top := 0
	for i := range h.Ops {
		top = max(top, h.Ops[i].Process)
	}
	if top > 4*len(h.Ops)+1024 {
		return false // sparse ids: the sort it is
	}
	last := make([]int32, top+1) // 1 + index of the process's last op; 0: none yet
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind == Expire {
			continue
		}
		j := last[o.Process] - 1
		last[o.Process] = int32(i) + 1
		if j < 0 {
			continue
		}
		if p := &h.Ops[j]; o.Call < p.Call || p.retires() || o.Client != p.Client || o.Call < p.Return {
			return false
		}
	}
	return true
}
