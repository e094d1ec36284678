package bench

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// WritePNG draws the report as a PNG with two panels, subjects along x and
// log-scaled y: cycles/s per cell (with the cycle ceiling as a first column),
// and, per contended cell, the hand-off p50 and the slowest worker's max wait.
func (r *Report) WritePNG(w io.Writer) error {
	names := []string{"ceiling/2"}
	for _, s := range r.Subjects {
		names = append(names, s.Name)
	}
	thr, err := r.throughputPlot(names)
	if err != nil {
		return err
	}
	lat, err := r.latencyPlot(names[1:])
	if err != nil {
		return err
	}
	img := vgimg.New(vg.Points(1300), vg.Points(560))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(30), PadTop: vg.Points(10), PadBottom: vg.Points(10), PadLeft: vg.Points(10), PadRight: vg.Points(10)}
	canvases := plot.Align([][]*plot.Plot{{thr, lat}}, tiles, dc)
	thr.Draw(canvases[0][0])
	lat.Draw(canvases[0][1])
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// palette is a colour-blind-safe set (Okabe-Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255}, color.RGBA{213, 94, 0, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255},
}

// series is one set of points on a nominal x axis (nil y: no point).
type series struct {
	label string
	ys    []float64 // by x index; <= 0 or NaN: no point
	shape draw.GlyphDrawer
	color int // index into palette
}

func newPlot(title, ylabel string, names []string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// addSeries draws each series as glyphs, nudged sideways so they stay apart.
func addSeries(p *plot.Plot, ss []series) error {
	for k, s := range ss {
		nudge := (float64(k) - float64(len(ss)-1)/2) * 0.6 / float64(max(len(ss), 1))
		var xys plotter.XYs
		for i, y := range s.ys {
			if y > 0 && !math.IsNaN(y) && !math.IsInf(y, 0) {
				xys = append(xys, plotter.XY{X: float64(i) + nudge, Y: y})
			}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: palette[s.color%len(palette)], Radius: vg.Points(4), Shape: s.shape}
		p.Add(sc)
		p.Legend.Add(s.label, sc)
	}
	// Room for the legend above the data, and a margin below it.
	if p.Y.Min > 0 && p.Y.Max > p.Y.Min {
		p.Y.Min /= 1.5
		p.Y.Max *= 6
	}
	return nil
}

func (r *Report) throughputPlot(names []string) (*plot.Plot, error) {
	p := newPlot("Lock/unlock cycles per second (median of rounds)", "cycles/s", names)
	var ss []series
	for _, contended := range []bool{false, true} {
		rows, kind, shape := r.Uncontended, "uncontended", draw.GlyphDrawer(draw.CircleGlyph{})
		if contended {
			rows, kind, shape = r.Contended, "contended", draw.TriangleGlyph{}
		}
		for _, n := range workerCounts(rows) {
			s := series{label: fmt.Sprintf("%s, %d", kind, n), shape: shape, ys: make([]float64, len(names)), color: len(ss)}
			if ce, ok := r.ceiling(n); ok {
				s.ys[0] = ce.CycleCeiling()
			}
			for i, name := range names[1:] {
				if row, ok := r.Row(contended, name, n); ok {
					s.ys[i+1] = row.CyclesPerSec
				}
			}
			ss = append(ss, s)
		}
	}
	return p, addSeries(p, ss)
}

func (r *Report) latencyPlot(names []string) (*plot.Plot, error) {
	p := newPlot("Contended: hand-off p50 (●) and slowest worker's max wait (×)", "milliseconds", names)
	var ss []series
	for _, worst := range []bool{false, true} {
		for k, n := range workerCounts(r.Contended) {
			s := series{label: fmt.Sprintf("hand-off p50, %d", n), shape: draw.CircleGlyph{}, ys: make([]float64, len(names)), color: k}
			if worst {
				s.label, s.shape = fmt.Sprintf("max wait, %d", n), draw.CrossGlyph{}
			}
			for i, name := range names {
				row, ok := r.Row(true, name, n)
				if !ok || row.Contention == nil {
					continue
				}
				d := row.Contention.HandoffP50
				if worst {
					d = row.Contention.MaxWait
				}
				s.ys[i] = d.Seconds() * 1000
			}
			ss = append(ss, s)
		}
	}
	return p, addSeries(p, ss)
}
