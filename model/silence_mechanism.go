package model

import "strings"

// silenceMechanism says how client c's watchdog fell silent on lock at
// from, the last command it sent there before the silence (or the hold's
// grant): MechanismAfterFailure when that command got an error or no
// answer, or a connection of the client closed before the second renewal
// after it was due (two periods: the first may go out late, and one that
// met a closing connection never reaches the trace), so that the next
// renewal may have met a failure; MechanismAfterAnswer otherwise. A
// watchdog that stops at a failed renewal shows the first; one that stops after a renewal Redis answered (found nothing to renew,
// or renewed for an owner that was gone) the second.
func (t *WireTrace) silenceMechanism(c int, lock string, from, period int64) string {
	cmds := t.lockCommands(c, lock)
	last := -1
	for i, e := range cmds {
		if e.Call <= from {
			last = i
		}
	}
	if last < 0 {
		return MechanismAfterAnswer
	}
	e := cmds[last]
	if e.Return == 0 || errorReply(e.Reply) {
		return MechanismAfterFailure
	}
	for _, x := range t.conns[c] {
		if x.Kind == WireClose && from < x.Call && x.Call <= from+2*period {
			return MechanismAfterFailure
		}
	}
	return MechanismAfterAnswer
}

// okReplies are the simple-string replies that are no error.
var okReplies = map[string]bool{"OK": true, "QUEUED": true, "PONG": true}

// errorReply reports whether a traced reply is an error: the trace
// renders one as its text, which begins with an upper-case code (ERR,
// NOSCRIPT, BUSY, READONLY, LOADING, …).
func errorReply(reply string) bool {
	code, _, _ := strings.Cut(reply, " ")
	if len(code) < 2 || okReplies[code] {
		return false
	}
	return strings.IndexFunc(code, func(r rune) bool { return r < 'A' || r > 'Z' }) < 0
}
