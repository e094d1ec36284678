package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func drawSim(t *rapid.T) (*rand.Rand, simConfig) {
	seed := rapid.Uint64().Draw(t, "seed")
	cfg := simConfig{
		locks:    rapid.IntRange(1, 3).Draw(t, "locks"),
		procs:    rapid.IntRange(2, 6).Draw(t, "procs"),
		ops:      rapid.IntRange(1, 300).Draw(t, "ops"),
		infoRate: rapid.SampledFrom([]float64{0, 0.02, 0.1, 0.3}).Draw(t, "infoRate"),
		sections: true,
	}
	return rand.New(rand.NewPCG(seed, 0x10c4)), cfg
}

// Histories of the sequential reference simulation are always valid, but
// for those in which no acquire was granted: they decide nothing (Unknown).
func TestSimulatedHistoriesAreValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r, cfg := drawSim(t)
		h, _ := simulate(r, cfg)
		if err := h.Validate(); err != nil {
			t.Fatalf("simulation produced a malformed history: %v", err)
		}
		rep := Check(h, Options{Timeout: 20 * time.Second})
		want := Valid
		if !granted(h) {
			want = Unknown
		}
		if rep.Verdict != want {
			t.Fatalf("simulated history judged %s:\n%s", rep.Verdict, rep)
		}
	})
}

// The same histories with one injected double grant are always invalid.
func TestInjectedDoubleGrantIsInvalid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r, cfg := drawSim(t)
		h, ws := simulate(r, cfg)
		bad, ok := injectDoubleGrant(r, h, ws)
		if !ok {
			t.Skip("no window to inject into")
		}
		res := CheckLinearizability(bad, Options{Timeout: 20 * time.Second})
		if res.Verdict != Invalid {
			t.Fatalf("double grant judged %s:\n%s", res.Verdict, res)
		}
	})
}
