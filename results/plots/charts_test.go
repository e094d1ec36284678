package plots

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// TestPanelsAndLineCharts: panels and line charts draw PNGs of the size
// asked, with series that have no point (all <= 0, NaN, Inf; no points)
// left out rather than failing.
func TestPanelsAndLineCharts(t *testing.T) {
	p := Panel{Title: "t", YLabel: "y", Names: []string{"a", "b"}, Marks: []Marks{
		{Label: "one", Ys: []float64{10, 100}, Glyph: Triangle},
		{Label: "none", Ys: []float64{0, math.NaN()}, Glyph: Cross, Color: 9},
	}}
	var b bytes.Buffer
	if err := WritePanelsPNG(&b, 300, 200, p, p); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if s := img.Bounds().Size(); s.X != 400 || s.Y != 267 {
		t.Errorf("panels are %v pixels, want 300x200 points at 96 dpi", s)
	}
	c := LineChart{Title: "t", LogX: true, XTicks: []float64{1, 8}, YFromZero: true, YMax: 105, Lines: []Line{
		{Label: "fair", XYs: [][2]float64{{1, 50}, {8, 90}}},
		{Label: "non-fair", XYs: [][2]float64{{1, 10}, {8, 20}}, Dashed: true, Color: 1},
		{Label: "empty"},
	}}
	path := filepath.Join(t.TempDir(), "c.png")
	if err := c.SavePNG(path, 200, 100); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("line chart: %v", err)
	}
}
