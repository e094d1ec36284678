package scenario

import "testing"

// client-conn-kill aims its kills at the holder's renewals (two windows in
// three) and kills its connections while 4–5 s sections go on: lockcheck's
// reentrant lock, whose watchdog retries on a fresh connection, stays
// valid. (A Go watchdog that stops at its first failed renewal,
// mutant-renew-gives-up, is not caught beyond the fault here yet: the
// drop's recorded reconnection runs to the client's next answered command
// on a new connection, which for a client that went silent is its
// release: see docs/checking.md.)
func TestClientConnKillKeepsAWatchdogThatRetriesValid(t *testing.T) {
	t.Parallel() // a world of its own; the run mostly waits
	res := runScenario(t, "client-conn-kill", "reentrant", 1)
	if len(injected(res.History)) == 0 {
		t.Fatal("no fault window recorded")
	}
	expectMet(t, "client-conn-kill", "reentrant", res)
}
