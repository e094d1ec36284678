package plots_test

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
	"github.com/lockcheck/lockcheck/results/plots"
)

// TestRunDirPlots: importing this package draws nothing; once Register
// ran, results.WriteRun draws latency.png and throughput.png, readable and
// big enough to read, and summary.md shows them. RESULTS_KEEP=DIR keeps the
// run directory.
func TestRunDirPlots(t *testing.T) {
	h := synth.History(42, 4*time.Second)
	rep := model.Check(h, model.Options{})
	write := func(name string) string {
		dir := results.RunDir(t.TempDir(), name, time.Unix(0, 0), 42)
		if _, err := results.WriteRun(dir, results.RunArtifacts{Subject: "reentrant", Workload: "counter", Seed: 42, History: h, Report: rep}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	if _, err := os.Stat(filepath.Join(write("unregistered"), results.LatencyPlot)); err == nil {
		t.Errorf("%s drawn before Register: importing the package registered the plots", results.LatencyPlot)
	}
	plots.Register()
	t.Cleanup(func() { results.RegisterPlots(nil, nil) })
	dir := write("counter-reentrant")
	for _, f := range []string{results.LatencyPlot, results.ThroughputPlot} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 300 {
			t.Errorf("%s is %dx%d, too small to read", f, b.Dx(), b.Dy())
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, []byte("![acquire latency]("+results.LatencyPlot+")")) {
		t.Errorf("summary.md does not show the plots:\n%s", md)
	}
	if keep := os.Getenv("RESULTS_KEEP"); keep != "" { // for looking at the plots
		_ = os.CopyFS(keep, os.DirFS(dir))
	}
}
