package model

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
)

func TestJSONLinesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, Header{Meta: map[string]string{"seed": "42", "subject": "reentrant"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Op{
		withToken(acq(0, "L", 1, 5, OK), 7),
		withEnq(try(1, "L", 2, 9, Fail), 3),
		{Process: 0, Lock: "L", Kind: Section, Call: 6, Return: 7, Read: 1, Write: 2, Token: 7, Seq: 2, Outcome: OK},
		rel(0, "L", 10, 12, Info),
	}
	var wg sync.WaitGroup
	for _, o := range want {
		wg.Go(func() {
			if err := rec.Op(o); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := rec.Fault(Fault{Name: "pause", Target: "redis-1", Start: 3, End: 8}); err != nil {
		t.Fatal(err)
	}
	got, err := ReadHistory(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Version != FormatVersion || got.Header.Meta["seed"] != "42" {
		t.Fatalf("header %+v", got.Header)
	}
	if len(got.Ops) != len(want) || len(got.Faults) != 1 || got.Truncated != nil {
		t.Fatalf("got %d ops, %d faults, truncated %v", len(got.Ops), len(got.Faults), got.Truncated)
	}
	for _, w := range want {
		found := false
		for _, g := range got.Ops {
			found = found || g == w
		}
		if !found {
			t.Errorf("op %v lost in the round trip", w)
		}
	}
	mem := rec.History()
	if len(mem.Ops) != len(want) || len(mem.Faults) != 1 {
		t.Fatalf("in-memory history has %d ops, %d faults", len(mem.Ops), len(mem.Faults))
	}
}

func TestReadHistoryTruncatedLastLine(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHistory(&buf, hist(acq(0, "L", 0, 5, OK), rel(0, "L", 6, 7, OK))); err != nil {
		t.Fatal(err)
	}
	full := buf.String()
	cut := full[:len(full)-10] // a crash in the middle of the last line
	h, err := ReadHistory(strings.NewReader(cut))
	if err != nil {
		t.Fatalf("truncated last line must be tolerated: %v", err)
	}
	if h.Truncated == nil || h.Truncated.Line != 3 || len(h.Ops) != 1 {
		t.Fatalf("want 1 op and line 3 reported truncated, got %d ops, %+v", len(h.Ops), h.Truncated)
	}
	// The same fragment followed by a newline is not a crash: it is an error.
	_, err = ReadHistory(strings.NewReader(cut + "\n"))
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("want a malformed-line error naming line 3, got %v", err)
	}
}

func TestReadHistoryMalformedLine(t *testing.T) {
	for _, tc := range []struct{ name, in, line string }{
		{"garbage", `{"header":{"version":1}}` + "\n" + `nonsense` + "\n" + `{"op":{"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok"}}` + "\n", "line 2"},
		{"no record", `{"header":{"version":1}}` + "\n" + `{"other":1}` + "\n", "line 2"},
		{"two records", `{"op":{"p":1},"fault":{"name":"x"}}` + "\n", "line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadHistory(strings.NewReader(tc.in))
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.line) {
				t.Fatalf("want malformed error at %s, got %v", tc.line, err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    *History
		bad  string
	}{
		{"ok", hist(acq(0, "L", 0, 5, OK), rel(0, "L", 5, 7, OK)), ""},
		{"return before call", hist(acq(0, "L", 5, 4, OK)), "before it is called"},
		{"overlap", hist(acq(0, "L", 0, 5, OK), rel(0, "L", 4, 7, OK)), "two ops at once"},
		{"after retirement", hist(acq(0, "L", 0, 5, Info), rel(0, "L", 6, 7, OK)), "retired"},
		{"kind", hist(Op{Process: 0, Lock: "L", Kind: "steal", Outcome: OK}), "unknown kind"},
		{"one client process", hist(withClient(acq(0, "L", 0, 5, OK), 2), withClient(rel(0, "L", 5, 7, OK), 2)), ""},
		{"two client processes", hist(withClient(acq(0, "L", 0, 5, OK), 1), withClient(rel(0, "L", 5, 7, OK), 2)), "client processes 1 and 2"},
		{"negative client", hist(withClient(acq(0, "L", 0, 5, OK), -1)), "negative client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.h.Validate()
			if (err == nil) != (tc.bad == "") || (err != nil && !strings.Contains(err.Error(), tc.bad)) {
				t.Fatalf("Validate() = %v, want %q", err, tc.bad)
			}
			if tc.bad != "" {
				if rep := Check(tc.h, Options{}); rep.Verdict != Unknown {
					t.Fatalf("Check on a malformed history: %s, want unknown", rep.Verdict)
				}
			}
		})
	}
}

func withClient(o Op, client int) Op {
	o.Client = client
	return o
}
