package model

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// FuzzHistory feeds mutated histories (seeds: testdata/fuzz/FuzzHistory,
// valid and violating histories of every kind of record) to the reader and
// the checkers. A mutation must be rejected with an error that says what
// kind of bad input it is (ErrMalformed, ErrInvalid) or, when accepted,
// decide the same verdict again after a round trip through the writer:
// nothing the reader accepts is dropped, invented or misread, and no
// input panics or hangs the check.
func FuzzHistory(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHistory(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNoHeader) {
				t.Fatalf("rejected without saying why it is bad input: %v", err)
			}
			return
		}
		if err := h.Validate(); err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("invalid without ErrInvalid: %v", err)
			}
			return
		}
		opts := Options{Timeout: 250 * time.Millisecond, MaxSegmentOps: 64} // short: an exec that times out is slow to minimize
		rep := Check(h, opts)
		var buf bytes.Buffer
		if err := WriteHistory(&buf, h); err != nil {
			t.Fatalf("an accepted history cannot be written: %v", err)
		}
		again, err := ReadHistory(&buf)
		if err == nil {
			err = again.Validate()
		}
		if err != nil {
			t.Fatalf("an accepted history, written out, is rejected: %v\n%s", err, buf.String())
		}
		if len(again.Ops) != len(h.Ops) || len(again.Faults) != len(h.Faults) || (again.End == nil) != (h.End == nil) {
			t.Fatalf("the round trip changed the records: %d/%d ops, %d/%d faults", len(h.Ops), len(again.Ops), len(h.Faults), len(again.Faults))
		}
		again.Truncated = h.Truncated // a property of the file, not of its records
		rep2 := Check(again, opts)
		if rep.Stopped == "" && rep2.Stopped == "" && rep.Verdict != rep2.Verdict {
			t.Fatalf("re-checked to %s, first %s:\n%v\n%v", rep2.Verdict, rep.Verdict, rep, rep2)
		}
	})
}
