package model

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The path from a file to a verdict agrees with the history in memory: a
// generated history, valid or broken in each way the benchmarks break it,
// written as JSON Lines and read back (the fast op decoder, interned
// strings, Validate's one pass) has the same ops and gets the same report,
// checker by checker, as the history it was written from.
func TestFilePathAgreesWithMemory(t *testing.T) {
	breaks := map[string]func(*rand.Rand, *History, []window) (*History, bool){
		"valid":           func(_ *rand.Rand, h *History, _ []window) (*History, bool) { return h, true },
		"double-grant":    injectDoubleGrant,
		"stale-unlock-ok": injectStaleUnlock,
		"lost-hold":       injectLostHold,
		"wrong-token":     injectWrongToken,
	}
	for seed := range uint64(4) {
		for name, brk := range breaks {
			r := rand.New(rand.NewPCG(seed, 33))
			h, ws := simulate(r, simConfig{locks: 3, procs: 4, ops: 2000, infoRate: 0.05 * float64(seed%3), sections: seed%2 == 0})
			h, ok := brk(r, h, ws)
			if !ok {
				continue
			}
			var buf bytes.Buffer
			if err := WriteHistory(&buf, h); err != nil {
				t.Fatal(err)
			}
			read, err := ReadHistory(&buf)
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, name, err)
			}
			if !slices.Equal(read.Ops, h.Ops) {
				t.Fatalf("seed %d %s: the ops read back differ from those written", seed, name)
			}
			opts := Options{Timeout: time.Minute}
			mem := Check(h, opts)
			if name != "valid" && mem.Verdict != Invalid {
				t.Fatalf("seed %d %s: a broken history judged %s:\n%s", seed, name, mem.Verdict, mem)
			}
			if got, want := reportText(Check(read, opts)), reportText(mem); got != want {
				t.Fatalf("seed %d %s: from the file:\n%s\nin memory:\n%s", seed, name, got, want)
			}
		}
	}
}

// reportText is a report without its timings.
func reportText(rep Report) string {
	for i := range rep.Results {
		rep.Results[i].Elapsed = 0
	}
	return rep.String()
}
