package model

import (
	"testing"
	"time"
)

// FuzzCheckLinearizability decodes bytes into a small well-formed history
// of any shape (not only the ones a correct lock produces) and checks that
// the linearizability checker does not panic, that its segmented verdict
// equals porcupine's on the unsplit history, and that both agree with the
// brute-force search (brute_test.go). The seed corpus is in
// testdata/fuzz/FuzzCheckLinearizability; `go test` runs it, and
//
//	go test -run '^$' -fuzz '^FuzzCheckLinearizability$' -fuzztime 1m ./model/
//
// searches further (make checker-soak).
func FuzzCheckLinearizability(f *testing.F) {
	for _, seed := range [][]byte{
		{0x00},
		// p0 acquires (lease 30) and its lease runs out; p1 then acquires.
		{0x02, 0x80, 0x09, 0x04, 0x00, 0x0c, 0xf8, 0x05, 0x00, 0x81, 0x08, 0x02, 0x00},
		// two processes acquire at once; one fails; an unknown release.
		{0x01, 0x80, 0x00, 0x10, 0x00, 0x11, 0x08, 0x05, 0x00, 0x24, 0x10, 0x81, 0x30},
		// a cancelled acquire of a holder, an Abandon, a late fail.
		{0x04, 0x80, 0x00, 0x02, 0x00, 0x10, 0x0c, 0x02, 0x00, 0x08, 0x08, 0x01, 0x00, 0x11, 0xf8, 0x01, 0x00},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, opts := decodeHistory(data)
		if err := h.Validate(); err != nil {
			t.Skip(err)
		}
		CheckLinearizability(h, Options{Timeout: 10 * time.Second, WatchdogLease: opts.WatchdogLease, Fair: opts.Fair})
		checkSplitEqualsWhole(t, h, opts)
		checkBrute(t, h, opts)
	})
}

// fuzzMaxOps bounds a decoded history, so that the brute force stays fast.
const fuzzMaxOps = 8

// decodeHistory reads a header byte (bit 0: fair; bits 1-2: watchdog lease)
// and then up to fuzzMaxOps ops of 4 bytes:
//
//	byte 0: bits 0-1 process slot, 2-3 kind (acquire, release, abandon,
//	        expire), 4-5 outcome (ok, fail, info, ok), 6 lock, 7 blocking
//	byte 1: bits 0-1 lease (watchdog, 30, 80, 100000), 2 cancelled,
//	        3-7 gap from the previous op's call
//	byte 2: bits 0-5 duration
//	byte 3: how far an info op's deadline lies past its return
//
// Ops of one process never overlap (its next op is called after its last
// returned) and a slot whose process was retired (info, Abandon) gets a
// fresh process, so most inputs decode to well-formed histories.
func decodeHistory(data []byte) (*History, Options) {
	h := &History{}
	if len(data) == 0 {
		return h, Options{}
	}
	opts := Options{Fair: data[0]&1 != 0, WatchdogLease: durNs([]int64{60, 400, 5000, 30}[data[0]>>1&3]), MaxSegmentOps: -1}
	data = data[1:]
	slots := []int{0, 1, 2, 3}
	next := 4
	lastRet := map[int]int64{}
	var cursor int64
	for len(data) >= 4 && len(h.Ops) < fuzzMaxOps {
		b0, b1, b2, b3 := data[0], data[1], data[2], data[3]
		data = data[4:]
		slot := int(b0 & 3)
		p := slots[slot]
		o := Op{
			Process:   p,
			Lock:      []string{"L0", "L1"}[b0>>6&1],
			Kind:      []Kind{Acquire, Release, Abandon, Expire}[b0>>2&3],
			Outcome:   []Outcome{OK, Fail, Info, OK}[b0>>4&3],
			Blocking:  b0&0x80 != 0,
			Lease:     []int64{0, 30, 80, 100000}[b1&3],
			Cancelled: b1&4 != 0,
		}
		cursor += int64(b1 >> 3)
		o.Call = cursor
		if r, ok := lastRet[p]; ok && o.Kind != Expire && o.Call <= r {
			o.Call = r + 1
		}
		o.Return = o.Call + int64(b2&63)
		if o.Kind != Acquire {
			o.Lease, o.Blocking, o.Cancelled = 0, false, false
		} else if !o.Blocking {
			o.Wait = o.Return - o.Call
		}
		if o.Outcome == Info && b3 > 0 {
			o.Deadline = o.Return + int64(b3)
		}
		h.Ops = append(h.Ops, o)
		if o.Kind != Expire {
			lastRet[p] = o.Return
		}
		if o.retires() {
			slots[slot] = next
			next++
		}
	}
	return h, opts
}
