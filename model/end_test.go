package model

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestEndRecord: a history that promises an end record is whole only with
// it, and not when its run was interrupted; the record survives a round
// trip, and nothing may follow it.
func TestEndRecord(t *testing.T) {
	ops := []Op{acq(0, "l", 0, 10, OK), rel(0, "l", 20, 30, OK)}
	for _, tc := range []struct {
		name string
		h    *History
		want Verdict
	}{
		{"no promise, no record", &History{Ops: ops}, Valid},
		{"promised and written", &History{Header: Header{Ends: true}, Ops: ops, End: &End{At: 40}}, Valid},
		{"promised, missing (killed)", &History{Header: Header{Ends: true}, Ops: ops}, Unknown},
		{"interrupted", &History{Header: Header{Ends: true}, Ops: ops, End: &End{Interrupted: true, At: 40}}, Unknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteHistory(&buf, tc.h); err != nil {
				t.Fatal(err)
			}
			h, err := ReadHistory(&buf)
			if err != nil {
				t.Fatal(err)
			}
			rep := Check(h, Options{WatchdogLease: testLease})
			if rep.Verdict != tc.want || rep.Incomplete() != (tc.want == Unknown) {
				t.Fatalf("verdict %s (incomplete %v), want %s\n%s", rep.Verdict, rep.Incomplete(), tc.want, rep)
			}
			if tc.want == Unknown && !strings.Contains(rep.String(), "did not finish") {
				t.Fatalf("the report does not say the run did not finish:\n%s", rep)
			}
		})
	}
	in := `{"header":{"version":1,"ends":true}}
{"op":{"p":0,"lock":"l","kind":"acquire","call":0,"ret":10,"outcome":"ok"}}
{"end":{"at":20}}
{"op":{"p":0,"lock":"l","kind":"release","call":30,"ret":40,"outcome":"ok"}}
`
	if _, err := ReadHistory(strings.NewReader(in)); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "after the end record") {
		t.Fatalf("a record after the end: %v, want ErrMalformed", err)
	}
}
