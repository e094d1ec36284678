package model

import (
	"testing"
)

// semFromBytes decodes a small one-object semaphore history, 4 bytes an
// op: process and kind, outcome and count, call gap, duration. Each
// process's ops follow one another; an info op retires its process.
func semFromBytes(data []byte) *History {
	h := &History{Header: Header{Version: FormatVersion}}
	free := map[int]int64{}
	retired := map[int]bool{}
	var at int64
	for len(data) >= 4 && len(h.Ops) < semBruteMaxOps {
		b := data[:4]
		data = data[4:]
		p := int(b[0] & 7)
		if retired[p] {
			continue
		}
		o := Op{Process: p, Lock: "s", Kind: []Kind{SemAcquire, SemRelease, SemAdd, SemSet}[b[0]>>3&3]}
		o.Outcome = []Outcome{OK, OK, Fail, Info}[b[1]&3]
		o.N = int64(b[1]>>2&7) - 1
		if o.Kind == SemAcquire || o.Kind == SemRelease {
			o.N = max(o.N, 1)
		}
		o.Cancelled = b[0]&0x20 != 0 && o.Kind == SemAcquire
		at += int64(b[2] & 31)
		o.Call = max(at, free[p]+1)
		o.Return = o.Call + int64(b[3]&63)
		free[p] = o.Return
		retired[p] = o.Outcome == Info
		h.Ops = append(h.Ops, o)
	}
	return h
}

// FuzzSemaphore: on any small history, the segmented check, the unsplit
// one and the brute-force search agree, and every semaphore checker
// decides without panicking.
func FuzzSemaphore(f *testing.F) {
	f.Add([]byte{0x08, 0x0c, 1, 5, 0, 0x04, 2, 5, 1, 0x04, 1, 5, 0x01, 0x01, 0, 3})
	f.Add([]byte{0x18, 0x08, 0, 2, 0x00, 0x04, 1, 4, 0x01, 0x04, 0, 4, 0x02, 0x06, 3, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		h := semFromBytes(data)
		if len(h.Ops) == 0 {
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("decoded an invalid history: %v", err)
		}
		ops := make([]*Op, len(h.Ops))
		for i := range h.Ops {
			ops[i] = &h.Ops[i]
		}
		want := Valid
		if !bruteSemLegal(ops) {
			want = Invalid
		}
		split := CheckSemLinearizable(h, Options{Timeout: diffTimeout})
		if split.Verdict != want || semWholeVerdict(h) != want {
			t.Fatalf("split %s, whole %s, brute force %s\n%s", split.Verdict, semWholeVerdict(h), want, dumpHistory(h))
		}
		rep := Check(h, Options{Timeout: diffTimeout})
		if len(rep.Results) == 0 {
			t.Fatal("no checker ran")
		}
	})
}
