package results

import (
	"io"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// PlotOptions tune the plots. The zero value is usable.
type PlotOptions struct {
	// Title names the run in the plot titles (e.g. "reentrant / mixed").
	Title string
	// Interval is the bucket width of per-interval figures (0: the smallest
	// of 10ms, 20ms, 50ms, ... 10m giving at most about 60 buckets).
	Interval time.Duration
}

// A PlotWriter draws one plot of h as a PNG on w.
type PlotWriter func(w io.Writer, h *model.History, o PlotOptions) error

// plotters are the registered plot writers (RegisterPlots).
var plotters struct {
	sync.RWMutex
	latency, throughput PlotWriter
}

// RegisterPlots sets the writers of a run directory's latency.png and
// throughput.png; plots.Register calls it (the CLI does when it assembles
// itself). Until then WriteRun draws no plots and summary.md links none:
// this package does not import a plotting library.
func RegisterPlots(latency, throughput PlotWriter) {
	plotters.Lock()
	defer plotters.Unlock()
	plotters.latency, plotters.throughput = latency, throughput
}

// registeredPlots returns the registered plot writers; ok is false when
// none are.
func registeredPlots() (latency, throughput PlotWriter, ok bool) {
	plotters.RLock()
	defer plotters.RUnlock()
	return plotters.latency, plotters.throughput, plotters.latency != nil && plotters.throughput != nil
}

// Span returns the first call and the last definite return (an info op's
// call) of h's ops; ok is false for a history without ops.
func Span(h *model.History) (first, last int64, ok bool) { return span(h) }

// ExactLatency summarises a small sample of latencies (ns) exactly, with
// nearest-rank percentiles: the per-interval quantiles of the plots.
func ExactLatency(ds []int64) Latency { return exactLatency(ds) }
