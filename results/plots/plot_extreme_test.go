package plots

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/results/internal/synth"
)

// One extreme time (an op called at 9.2e18 ns, a fault ending at
// MaxInt64, a tiny given interval) never makes a plot take time or memory
// in proportion to it: the plots are drawn at once.
func TestPlotsOfExtremeTimes(t *testing.T) {
	base := synth.History(3, 2*time.Second)
	far := *base
	far.Ops = append(append([]model.Op(nil), base.Ops...), model.Op{Process: 99, Lock: "L", Kind: model.Acquire,
		Call: 9_200_000_000_000_000_000, Return: 9_200_000_000_000_000_001, Outcome: model.OK})
	open := *base
	open.Faults = append(append([]model.Fault(nil), base.Faults...), model.Fault{Name: "pause", Start: 1e9, End: math.MaxInt64})
	for name, c := range map[string]struct {
		h *model.History
		o results.PlotOptions
	}{
		"op at 9.2e18":           {&far, results.PlotOptions{}},
		"fault to MaxInt64":      {&open, results.PlotOptions{}},
		"1ns interval over days": {&open, results.PlotOptions{Interval: time.Nanosecond}},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			var buf bytes.Buffer
			if err := WriteLatencyPNG(&buf, c.h, c.o); err != nil {
				t.Fatal(err)
			}
			decodePNG(t, "latency", buf.Bytes())
			buf.Reset()
			if err := WriteThroughputPNG(&buf, c.h, c.o); err != nil {
				t.Fatal(err)
			}
			decodePNG(t, "throughput", buf.Bytes())
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("the plots took %v", took)
			}
		})
	}
}
