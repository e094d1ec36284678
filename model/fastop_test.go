package model

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// FuzzParseOpLine holds the fast op decoder to decodeStrict: a line it
// accepts decodes to exactly the op decodeStrict gives.
func FuzzParseOpLine(f *testing.F) {
	for _, s := range []string{
		`{"op":{"p":3,"lock":"lock-07","kind":"acquire","call":43025,"ret":43026,"lease":10000000,"blocking":true,"token":453,"outcome":"ok"}}`,
		`{"op":{"p":0,"client":2,"lock":"L","kind":"release","call":1,"ret":2,"deadline":9,"outcome":"fail","err":"not owner"}}`,
		`{"op":{"p":1,"lock":"L","kind":"section","call":0,"ret":-1,"res":"r","read":-5,"write":9223372036854775807,"seq":1,"overrun":true,"cancelled":false,"enq":1,"wait":0,"outcome":"info"}}`,
		`{"op":{}}`, `{"op":{"p":01}}`, `{"op":{"p":1e3}}`, `{"op":{"P":1}}`, `{"op":{"p":1,"p":2}}`, `{"op":{"lock":"a\"b"}}`,
		`{"op":{"p":9223372036854775808}}`, `{"op":{"p":-9223372036854775808}}`, `{"op":{"p":null}}`, `{"op":{"p":1}} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := parseOpLine(b, nil)
		if !ok {
			return
		}
		var l line
		if err := decodeStrict(b, &l); err != nil || l.Op == nil {
			t.Fatalf("fast decoder accepted %q, decodeStrict says %v (op %v)", b, err, l.Op)
		}
		if got != *l.Op {
			t.Fatalf("%q: fast decoder %+v, decodeStrict %+v", b, got, *l.Op)
		}
	})
}

// Every op the Recorder writes takes the fast path, and decodes to itself.
func TestRecordedOpsTakeTheFastPath(t *testing.T) {
	ops := []Op{
		withToken(withLease(acq(3, "lock-07", 43025, 43026, OK), 10_000_000), 453),
		{Process: 0, Client: 2, Lock: "L", Kind: Release, Call: 1, Return: 2, Deadline: 9, Outcome: Fail, Error: "not owner"},
		{Process: 1, Lock: "L", Kind: Section, Call: 0, Return: 7, Resource: "r", Read: -5, Write: 1 << 62, Seq: 1, Overrun: true, Enqueued: 1, Wait: 3, Cancelled: true, Outcome: Info},
	}
	for _, o := range ops {
		var buf bytes.Buffer
		r, err := NewRecorder(&buf, Header{})
		if err != nil {
			t.Fatal(err)
		}
		buf.Reset()
		if err := r.Op(o); err != nil {
			t.Fatal(err)
		}
		got, ok := parseOpLine(bytes.TrimSpace(buf.Bytes()), nil)
		if !ok || got != o {
			t.Fatalf("%s: fast path %v, got %+v, want %+v", buf.Bytes(), ok, got, o)
		}
	}
}

// Validate's one pass agrees with its sorted check: on generated and
// perturbed histories, and the same with their ops shuffled, the pass
// accepts only what the sort accepts.
func TestValidateInOrderAgreesWithSorted(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, _, _ := genHistory(t, genConfig{maxSteps: 60, maxLocks: 2, perturb: true})
		if rapid.Bool().Draw(t, "shuffle") {
			perm := rapid.Permutation(h.Ops).Draw(t, "perm")
			h.Ops = perm
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "breaks") {
			if len(h.Ops) == 0 {
				break
			}
			o := &h.Ops[rapid.IntRange(0, len(h.Ops)-1).Draw(t, "victim")]
			switch rapid.IntRange(0, 2).Draw(t, "break") {
			case 0:
				o.Process = rapid.IntRange(0, 3).Draw(t, "process")
			case 1:
				o.Client = rapid.IntRange(0, 1).Draw(t, "client")
			default:
				o.Outcome = Info
			}
			_ = i
		}
		sorted := h.processesSorted()
		if h.processesInOrder() && sorted != nil {
			t.Fatalf("the one pass accepts what the sorted check rejects: %v\n%s", sorted, dumpHistory(h))
		}
	})
}
