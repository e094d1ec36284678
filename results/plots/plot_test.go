package plots

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/results/internal/synth"
)

// decodePNG fails the test unless b is a readable PNG of the plot size.
func decodePNG(t *testing.T, name string, b []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if bd := img.Bounds(); bd.Dx() != 1152 || bd.Dy() != 480 {
		t.Errorf("%s is %dx%d, want 1152x480", name, bd.Dx(), bd.Dy())
	}
}

func TestPlotsEdgeCases(t *testing.T) {
	many := synth.History(9, 6*time.Second)
	many.Faults = append(many.Faults,
		model.Fault{Name: "latency", Target: "proxy", Start: int64(500 * time.Millisecond), End: int64(1200 * time.Millisecond)},
		model.Fault{Name: "kill", Target: "redis-1", Start: int64(4 * time.Second), End: int64(4*time.Second + 3*time.Millisecond)},
		model.Fault{Name: "partition", Start: int64(5 * time.Second)}, // never healed
	)
	for name, h := range map[string]*model.History{
		"nil":         nil,
		"empty":       {},
		"only-faults": {Faults: []model.Fault{{Name: "pause", Start: 0, End: int64(time.Second)}}},
		"many-faults": many,
	} {
		t.Run(name, func(t *testing.T) {
			var lat, thr bytes.Buffer
			if err := WriteLatencyPNG(&lat, h, results.PlotOptions{Title: name}); err != nil {
				t.Fatal(err)
			}
			if err := WriteThroughputPNG(&thr, h, results.PlotOptions{Title: name}); err != nil {
				t.Fatal(err)
			}
			decodePNG(t, "latency", lat.Bytes())
			decodePNG(t, "throughput", thr.Bytes())
			if keep := os.Getenv("RESULTS_KEEP"); keep != "" {
				_ = os.MkdirAll(keep, 0o755)
				_ = os.WriteFile(filepath.Join(keep, name+"-latency.png"), lat.Bytes(), 0o644)
				_ = os.WriteFile(filepath.Join(keep, name+"-throughput.png"), thr.Bytes(), 0o644)
			}
		})
	}
}

func TestThin(t *testing.T) {
	if testing.Short() {
		t.Skip("draws a 60 s history")
	}
	h := synth.History(11, 60*time.Second)
	var n int
	for _, o := range h.Ops {
		if o.Kind == model.Acquire && o.Outcome == model.OK {
			n++
		}
	}
	if n <= maxScatter {
		t.Fatalf("synthetic history has %d grants, want more than %d to exercise thinning", n, maxScatter)
	}
	var lat bytes.Buffer
	if err := WriteLatencyPNG(&lat, h, results.PlotOptions{}); err != nil {
		t.Fatal(err)
	}
	decodePNG(t, "latency", lat.Bytes())
}

func TestChooseInterval(t *testing.T) {
	for span, want := range map[time.Duration]time.Duration{
		0:                      10 * time.Millisecond,
		500 * time.Millisecond: 10 * time.Millisecond,
		4 * time.Second:        100 * time.Millisecond,
		30 * time.Second:       500 * time.Millisecond,
		10 * time.Minute:       10 * time.Second,
	} {
		if got := chooseInterval(span); got != want {
			t.Errorf("chooseInterval(%v) = %v, want %v", span, got, want)
		}
	}
}
