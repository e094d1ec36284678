package model

import (
	"testing"
	"time"
)

// FuzzCheckRWLinearizability is FuzzCheckLinearizability for read-write
// locks: the first byte gives each decoded op its mode (bit i set: op i
// reads; clear: it writes), the rest decodes as in decodeHistory. The
// checker must not panic, its segmented verdict must equal porcupine's on
// the unsplit history, and both must agree with the read-write brute
// force. The seeds are the f.Add cases below;
//
//	go test -run '^$' -fuzz '^FuzzCheckRWLinearizability$' -fuzztime 1m ./model/
//
// searches further.
func FuzzCheckRWLinearizability(f *testing.F) {
	for _, seed := range [][]byte{
		{0x00, 0x00},
		// two readers share; a writer is refused; the readers release.
		{0x0f, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01, 0x00, 0x04, 0x00, 0x12, 0x08, 0x04, 0x00, 0x04, 0x08, 0x04, 0x00, 0x05, 0x08, 0x04, 0x00},
		// a writer downgrades, releases the write lock, another reads.
		{0x1a, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x08, 0x04, 0x00, 0x04, 0x08, 0x04, 0x00, 0x01, 0x08, 0x04, 0x00},
		// a retired reader, an expired writer, a late release.
		{0x05, 0x02, 0x00, 0x01, 0x04, 0x00, 0x29, 0x08, 0x04, 0x05, 0x0c, 0x08, 0x04, 0x00, 0x05, 0x08, 0x04, 0x00},
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			t.Skip()
		}
		h, opts := decodeHistory(data[1:])
		for i := range h.Ops {
			h.Ops[i].Mode = ModeWrite
			if data[0]&(1<<i) != 0 {
				h.Ops[i].Mode = ModeRead
			}
		}
		if err := h.Validate(); err != nil {
			t.Skip(err)
		}
		CheckLinearizability(h, Options{Timeout: 10 * time.Second, WatchdogLease: opts.WatchdogLease, Fair: opts.Fair})
		checkSplitEqualsWhole(t, h, opts)
		checkRWBrute(t, h, opts)
	})
}
