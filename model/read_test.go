package model

import (
	"errors"
	"strings"
	"testing"
)

const testHeader = `{"header":{"version":1}}` + "\n"

// Records that parse but cannot occur are bad input naming their line, not
// histories to check.
func TestReadHistoryRejectsImpossibleRecords(t *testing.T) {
	op := func(s string) string { return `{"op":{` + s + `}}` + "\n" }
	good := op(`"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok"`)
	for _, tc := range []struct {
		name, in string
		sentinel error
		line     string
	}{
		{"returns before call", testHeader + good + op(`"p":1,"lock":"L","kind":"release","call":9,"ret":1,"outcome":"ok"`), ErrInvalid, "line 3"},
		{"unknown kind", testHeader + op(`"p":1,"lock":"L","kind":"steal","call":1,"ret":2,"outcome":"ok"`), ErrInvalid, "line 2"},
		{"unknown outcome", testHeader + op(`"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"maybe"`), ErrInvalid, "line 2"},
		{"negative process", testHeader + op(`"p":-1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok"`), ErrInvalid, "line 2"},
		{"empty lock", testHeader + op(`"p":1,"lock":"","kind":"acquire","call":1,"ret":2,"outcome":"ok"`), ErrInvalid, "line 2"},
		{"fault ends before it starts", testHeader + `{"fault":{"name":"pause","start":5,"end":2}}` + "\n", ErrInvalid, "line 2"},
		{"no header", good, ErrNoHeader, "line 1"},
		{"header after an op", good + testHeader, ErrNoHeader, "line 1"},
		{"two headers", testHeader + testHeader, ErrMalformed, "line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadHistory(strings.NewReader(tc.in))
			if !errors.Is(err, ErrMalformed) || !errors.Is(err, tc.sentinel) || !strings.Contains(err.Error(), tc.line) {
				t.Fatalf("want an error wrapping %v at %s, got %v", tc.sentinel, tc.line, err)
			}
		})
	}
}

// Interned strings keep their values.
func TestReadHistoryKeepsValues(t *testing.T) {
	in := testHeader +
		`{"op":{"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok","err":"x"}}` + "\n" +
		`{"op":{"p":2,"lock":"M","kind":"acquire","call":1,"ret":2,"outcome":"fail","err":"x"}}` + "\n"
	h, err := ReadHistory(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 2 || h.Ops[0].Lock != "L" || h.Ops[1].Lock != "M" || h.Ops[1].Outcome != Fail || h.Ops[1].Error != "x" {
		t.Fatalf("ops %+v", h.Ops)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
}

// Cross-record problems name the op's line.
func TestValidateNamesLine(t *testing.T) {
	in := testHeader +
		`{"op":{"p":1,"lock":"L","kind":"acquire","call":1,"ret":5,"outcome":"info"}}` + "\n" +
		`{"fault":{"name":"pause","start":1,"end":2}}` + "\n" +
		`{"op":{"p":1,"lock":"L","kind":"release","call":6,"ret":7,"outcome":"ok"}}` + "\n"
	h, err := ReadHistory(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("Validate() = %v, want ErrInvalid naming line 4", err)
	}
}

// A history without ops decided nothing: not valid.
func TestCheckNoOpsIsNotValid(t *testing.T) {
	for _, h := range []*History{{}, {Faults: []Fault{{Name: "pause", Start: 1, End: 2}}}} {
		if rep := Check(h, Options{}); rep.Verdict == Valid {
			t.Fatalf("Check of a history without ops: %s", rep.Verdict)
		}
	}
}

// WriteHTML refuses a history it cannot draw instead of panicking.
func TestWriteHTMLRejectsInvalidHistory(t *testing.T) {
	h := hist(acq(0, "L", 9, 1, OK))
	var b strings.Builder
	if err := WriteHTML(&b, h, Options{}, HTMLOptions{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("WriteHTML = %v, want ErrInvalid", err)
	}
}

// A history cut short by a crash is a prefix: its verdict is never valid.
func TestCheckTruncatedIsNotValid(t *testing.T) {
	in := testHeader +
		`{"op":{"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok"}}` + "\n" +
		`{"op":{"p":1,"lock":"L","kind":"rele`
	h, err := ReadHistory(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	rep := Check(h, Options{})
	if rep.Verdict == Valid || !rep.Incomplete() {
		t.Fatalf("verdict %s, incomplete %v on a truncated history", rep.Verdict, rep.Incomplete())
	}
	if r, ok := rep.Result(CheckComplete); !ok || r.Verdict != Unknown {
		t.Fatalf("no unknown %q result: %+v", CheckComplete, rep.Results)
	}
	if !strings.Contains(rep.String(), "did not finish") {
		t.Fatalf("report does not say the run did not finish:\n%s", rep)
	}
	// A violation in the prefix stays a violation.
	h.Ops = append(h.Ops, acq(2, "L", 3, 4, OK))
	if rep := Check(h, Options{}); rep.Verdict != Invalid {
		t.Fatalf("violation in a truncated prefix: %s", rep.Verdict)
	}
}
