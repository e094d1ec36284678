package model

import (
	"slices"
	"testing"
	"time"
)

// A refusal past the lease bound names what left the hold that refused
// it, from the last command on the lock before it that carries one
// process's token: that process's last ending on the lock (an acquire
// answered not granted, an interrupted one, a release answered ok).
func TestRefusalNamesItsKeeper(t *testing.T) {
	const token = "fe34ec-89ee:18"
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 1}, {Kind: WireBind, Client: 2, Process: 3}}
	cmd := func(m float64, args string) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500 " + args, Reply: "1", Call: msT(m), Return: msT(m + 1)}
	}
	refused := Op{Process: 3, Lock: "L", Kind: Acquire, Wait: msT(200), Call: msT(4000), Return: msT(4200), Outcome: Fail}
	held := []Op{aAcq(1, 10, 20), aRel(1, 50, 60, OK)} // the lease bound judges a lock that was held
	first := cmd(110, token)                           // p0's first request, in each case's call at 100 ms
	for _, c := range []struct {
		name string
		p0   []Op
		mech string
	}{
		{"after an acquire answered not granted", []Op{{Process: 0, Lock: "L", Kind: Acquire, Wait: msT(200), Call: msT(100), Return: msT(300), Outcome: Fail}}, MechanismAfterRefusal},
		{"after an interrupted acquire", []Op{{Process: 0, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(100), Return: msT(300), Outcome: Info, Cancelled: true}}, MechanismAfterRetirement},
		{"after a release answered ok", []Op{aAcq(0, 100, 120), aRel(0, 200, 210, OK)}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			own := cmd(4100, "5839e0-86a5:17") // the refused waiter's own attempt, answered with the time left
			own.Client, own.Reply = 2, "1400"
			evs := append([]WireEvent{first, own}, binds...)
			for m := 3000.0; m < 4200; m += 500 {
				evs = append(evs, cmd(m, token))
			}
			ops := append(append(slices.Clone(held), c.p0...), refused)
			opts := Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(evs)}
			h := &History{Ops: ops}
			holds, acqs := holdsOf(h, h.horizon())["L"], lockAcquires(h)["L"]
			owners := func() map[string]tokenUse { return opts.Wire.tokenOwners("L", callWindows(holds, acqs)) }
			oc := newOccupants("L", holds, acqs, lockReleases(h)["L"], owners, opts, h.horizon())
			if mech, known := oc.refusalMechanism(refused); !known || mech != c.mech {
				t.Errorf("keeper's ending %q (known %v), want %q", mech, known, c.mech)
			}
			if _, known := oc.refusalMechanism(Op{Return: msT(2000)}); known {
				t.Errorf("a refusal with no command on the lock in the lease before it has a known keeper")
			}
			r := CheckBeyond(h, opts)
			i := slices.IndexFunc(r.Examples, func(ex Example) bool { return ex.Shape == ShapeOrphanRenewed && ex.Ops[0].Process == 3 })
			if i < 0 {
				t.Fatalf("no refusal past the lease bound:\n%s", r)
			}
			if got := r.Examples[i].Mechanism; got != c.mech {
				t.Errorf("refusal's mechanism %q, want %q:\n%s", got, c.mech, r)
			}
		})
	}
}
