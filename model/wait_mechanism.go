package model

import (
	"fmt"
	"slices"
	"strings"
)

// waitMechanism says, from the wire trace, how process p's acquire came to
// wait through [from, to], a stretch in which the history shows lock free:
// MechanismSilent when p's client sent nothing naming the lock in it (no
// attempt while the lock stood free: a wake-up missed on the client's
// side), MechanismRefused when it sent some (it asked while the lock stood
// free and was not granted: something on the server's side, a hold or a
// queue entry the history does not show, kept it out). asked is how many
// it sent. "" when the trace says nothing of p's client.
//
// The client is the connection p ran on, shared by its sibling owners: an
// attempt of theirs counts as the client's. The stretch ends at a grant
// (p's own, or ender's: -1 for none), whose command lies inside it: when
// that grant is the client's, its last command in the stretch is that one
// and is not counted. Subscriptions (a waiter's channel) ask for nothing.
func (t *WireTrace) waitMechanism(p, ender int, lock string, from, to int64) (mech string, asked int) {
	if t == nil {
		return "", 0
	}
	c, ok := t.clientOf(p)
	if !ok {
		return "", 0
	}
	for _, e := range t.lockCommands(c, lock) {
		if e.Call > from && e.Call < to && !pubsubCommand(e.Cmd) {
			asked++
		}
	}
	if ec, ok := t.clientOf(ender); ok && ec == c && asked > 0 {
		asked-- // the grant that ended the stretch
	}
	if asked == 0 {
		return MechanismSilent, 0
	}
	return MechanismRefused, asked
}

// pubsubCommand reports whether cmd subscribes or unsubscribes its
// connection.
func pubsubCommand(cmd string) bool {
	return isSubscribe(cmd) || slices.Contains([]string{"UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE"}, cmd)
}

// stretchEnder returns the process whose grant on o's lock (or semaphore)
// took effect at to, the end of a stretch o waited through (o's own
// grant, or another's hold beginning), or -1 when none did (a fault window
// began, the permits ran short).
func stretchEnder(h *History, o Op, to int64) int {
	if o.Outcome == OK && o.Return == to {
		return o.Process
	}
	for _, a := range h.Ops {
		if (a.Kind == Acquire || isGrantKind(a.Kind)) && a.Outcome == OK && a.Lock == o.Lock && a.Return == to {
			return a.Process
		}
	}
	return -1
}

// stretchOpener returns the op whose effect opened the stretch from which
// o waited beside its lock (or semaphore) free: a release of the lock, or a
// release, addition or setting of the semaphore's permits, that succeeded
// and is surely done at its return, which is from. false when none is: the
// stretch began with o's call, at a lease's expiry or at a fault window's
// end.
func stretchOpener(h *History, o Op, from int64) (Op, bool) {
	if from <= o.Call {
		return Op{}, false
	}
	for _, a := range h.Ops {
		if a.Lock == o.Lock && a.Return == from && a.Outcome == OK && freesKind(a.Kind) {
			return a, true
		}
	}
	return Op{}, false
}

// freesKind reports whether an op of kind k that succeeds leaves its lock
// free or adds permits to its semaphore.
func freesKind(k Kind) bool {
	return slices.Contains([]Kind{Release, SemRelease, SemAdd, SemSet, PermitRelease}, k)
}

// waitEvidence adds to ex's ops the one that opened its longest free
// stretch [from, to] (stretchOpener: a release, a semaphore's addition),
// so that its signature says what freed what o waited beside, sets ex's
// mechanism (waitMechanism over that stretch) and says in its cause what the trace showed: a
// silent client's wait stays a lost wake-up, with the evidence; a refused
// one's is no lost wake-up, and its cause says so (whatever ex's cause
// said after lostWakeUp is kept).
func waitEvidence(ex *Example, h *History, w *WireTrace, o Op, from, to int64) {
	if opener, ok := stretchOpener(h, o, from); ok {
		ex.Ops = append(ex.Ops, opener)
	}
	mech, asked := w.waitMechanism(o.Process, stretchEnder(h, o, to), o.Lock, from, to)
	ex.Mechanism = mech
	rest := strings.TrimPrefix(ex.Cause, lostWakeUp)
	stretch := fmt.Sprintf("%s from %s to %s, while it stood free", o.Lock, fmtTime(from), fmtTime(to))
	switch mech {
	case MechanismSilent:
		evidence := fmt.Sprintf("wire trace: p%d's client sent nothing on %s", o.Process, stretch)
		if ex.Cause == "" {
			ex.Cause = evidence
		} else {
			ex.Cause += " (" + evidence + ")"
		}
	case MechanismRefused:
		ex.Cause = fmt.Sprintf("nothing the history shows and no fault explains the wait, yet p%d's client sent %d command(s) on %s, and was not granted (wire trace): "+
			"state on the server that no op accounts for (a hold, a queue entry, permits taken) kept it out%s", o.Process, asked, stretch, rest)
	}
}
