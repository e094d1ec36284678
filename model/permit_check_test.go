package model

import (
	"testing"

	"github.com/anishathalye/porcupine"
)

func permitOp(p int, kind Kind, id string, call, ret int64, out Outcome) Op {
	return Op{Process: p, Lock: "ps", Kind: kind, PermitID: id, Call: call, Return: ret, Outcome: out, N: 1}
}

// "An expired permit's release reports success": a release after the
// permit's lease surely ended must fail; one well inside it must succeed.
func TestPermitExpiredReleaseCaught(t *testing.T) {
	set := Op{Process: 9, Lock: "ps", Kind: SemSet, N: 1, Call: 0, Return: 1, Outcome: OK}
	acq := permitOp(1, PermitAcquire, "a", 10, 11, OK)
	acq.Lease = 100
	for _, c := range []struct {
		name string
		rel  Op
		want Verdict
	}{
		{"late release ok", permitOp(1, PermitRelease, "a", 200, 201, OK), Invalid},
		{"late release fail", permitOp(1, PermitRelease, "a", 200, 201, Fail), Valid},
		{"early release ok", permitOp(1, PermitRelease, "a", 50, 51, OK), Valid},
		{"early release fail", permitOp(1, PermitRelease, "a", 50, 51, Fail), Invalid},
		{"release at the lease's end", permitOp(1, PermitRelease, "a", 105, 115, OK), Valid},
		{"unknown id ok", permitOp(1, PermitRelease, "b", 50, 51, OK), Invalid},
	} {
		h := &History{Ops: []Op{set, acq, c.rel}}
		if got := CheckSemLinearizable(h, Options{PermitGranularity: -1}).Verdict; got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// A permit whose lease ran out goes back to the pool: an acquire after it
// must be granted ("expired permits not returned" is a refusal), and two
// permits out of one are never held at once.
func TestPermitExpiryReturnsPermit(t *testing.T) {
	set := Op{Process: 9, Lock: "ps", Kind: SemSet, N: 1, Call: 0, Return: 1, Outcome: OK}
	acq := permitOp(1, PermitAcquire, "a", 10, 11, OK)
	acq.Lease = 100
	late := permitOp(2, PermitAcquire, "", 300, 310, Fail)
	h := &History{Ops: []Op{set, acq, late}}
	if r := CheckSemLinearizable(h, Options{PermitGranularity: -1}); r.Verdict != Invalid || r.Examples[0].Class != ClassRefusal {
		t.Fatalf("refused after expiry: %s", r)
	}
	early := permitOp(2, PermitAcquire, "b", 50, 60, OK)
	h = &History{Ops: []Op{set, acq, early}}
	if r := CheckSemLinearizable(h, Options{PermitGranularity: -1}); r.Verdict != Invalid {
		t.Fatalf("second permit of one: %s", r)
	}
	if r := CheckPermitsConserved(h, Options{PermitGranularity: -1}); r.Verdict != Invalid {
		t.Fatalf("conserved on a second permit of one: %s", r)
	}
}

// An info acquire may never have run: it need not have returned the
// expired permit a later acquire then finds, one per attempt. Both permits
// are out on leases, and the pool is at -1 after addPermits(-1). The info
// acquire comes after a's lease ended, before b's; the refused acquire
// after both. Had the info acquire run, it returned a (and found the pool
// at 0), and the refused one would have returned b and been granted; had
// it not, the refused one returned a into a pool at -1 and found none: a
// legal refusal (drawn by TestPermitGroundTruthIsValid: before, the model
// made every info acquire return a permit whose lease surely ended).
func TestPermitInfoAcquireMayNotHaveRun(t *testing.T) {
	set := Op{Process: 9, Lock: "ps", Kind: SemSet, N: 2, Call: 0, Return: 1, Outcome: OK}
	a := permitOp(1, PermitAcquire, "a", 10, 11, OK)
	a.Lease = 20
	b := permitOp(1, PermitAcquire, "b", 20, 21, OK)
	b.Lease = 44
	drop := Op{Process: 1, Lock: "ps", Kind: SemAdd, N: -1, Call: 40, Return: 41, Outcome: OK}
	info := permitOp(2, PermitAcquire, "", 60, 60, Info)
	refused := permitOp(3, PermitAcquire, "", 80, 80, Fail)
	h := &History{Ops: []Op{set, a, b, drop, info, refused}}
	if r := CheckSemLinearizable(h, Options{PermitGranularity: -1}); r.Verdict != Valid {
		t.Fatalf("a refusal the info acquire's absence explains: %s", r)
	}
	// A cancelled acquire answered ok did run: it returned a, so the
	// refused acquire would have returned b and been granted.
	granted := permitOp(2, PermitAcquire, "c", 60, 60, OK)
	granted.Cancelled = true
	h = &History{Ops: []Op{set, a, b, drop, granted, refused}}
	if r := CheckSemLinearizable(h, Options{PermitGranularity: -1}); r.Verdict != Invalid {
		t.Fatalf("a cancelled acquire answered ok taken as never run: %s", r)
	}
}

// FuzzPermits: on any small permit history, split and whole agree, and
// the model accepts whatever the concrete search accepts.
func FuzzPermits(f *testing.F) {
	f.Add([]byte{0x00, 0x05, 2, 3, 0x09, 0x11, 1, 5, 0x0a, 0x01, 30, 2, 0x02, 0x01, 3, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		h := permitFromBytes(data)
		if len(h.Ops) == 0 || h.Validate() != nil {
			return
		}
		split := CheckSemLinearizable(h, Options{Timeout: diffTimeout, PermitGranularity: -1}).Verdict
		if whole := permitWhole(h); (whole == porcupine.Ok) != (split == Valid) {
			t.Fatalf("split %s, whole %s:\n%s", split, whole, dumpHistory(h))
		}
		if split == Invalid && brutePermitLegal(h) {
			t.Fatalf("the model rejects a history the concrete search accepts:\n%s", dumpHistory(h))
		}
		Check(h, Options{Timeout: diffTimeout, PermitGranularity: -1})
	})
}

// permitFromBytes decodes a small permit history, 4 bytes an op: process
// and kind, outcome and lease or count, call gap, duration. Releases name
// the permit of an earlier ok acquire.
func permitFromBytes(data []byte) *History {
	h := &History{Header: Header{Version: FormatVersion}}
	free := map[int]int64{}
	retired := map[int]bool{}
	var ids []string
	var at int64
	for len(data) >= 4 && len(h.Ops) < 6 {
		b := data[:4]
		data = data[4:]
		p := int(b[0] & 7)
		if retired[p] {
			continue
		}
		o := Op{Process: p, Lock: "ps", Kind: []Kind{PermitAcquire, PermitRelease, SemAdd, SemSet}[b[0]>>3&3]}
		o.Outcome = []Outcome{OK, OK, Fail, Info}[b[1]&3]
		switch o.Kind {
		case PermitAcquire:
			o.Lease = int64(b[1]>>2) * 2
			if o.Outcome == OK {
				o.PermitID = string(rune('a' + len(h.Ops)))
				ids = append(ids, o.PermitID)
			}
		case PermitRelease:
			if len(ids) == 0 {
				continue
			}
			o.PermitID = ids[int(b[1]>>2)%len(ids)]
		default:
			o.N = int64(b[1]>>2&3) - 1
		}
		at += int64(b[2] & 15)
		o.Call = max(at, free[p]+1)
		o.Return = o.Call + int64(b[3]&15)
		free[p] = o.Return
		retired[p] = o.Outcome == Info
		h.Ops = append(h.Ops, o)
	}
	return h
}
