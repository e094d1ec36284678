package plots

import (
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Glyph is the mark of a Marks series.
type Glyph int

// The glyphs.
const (
	Circle Glyph = iota
	Triangle
	Cross
)

func (g Glyph) drawer() draw.GlyphDrawer {
	switch g {
	case Triangle:
		return draw.TriangleGlyph{}
	case Cross:
		return draw.CrossGlyph{}
	}
	return draw.CircleGlyph{}
}

// palette is a colour-blind-safe set (Okabe-Ito): a Color indexes it,
// modulo its length.
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255}, color.RGBA{213, 94, 0, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255},
}

// Marks is one set of points on a Panel's nominal x axis.
type Marks struct {
	Label string
	// Ys are the points by x index; <= 0, NaN or Inf: no point.
	Ys    []float64
	Glyph Glyph
	Color int
}

// Panel is a plot of figures by name: names along x, a log-scaled y, each
// Marks series drawn as glyphs nudged sideways so they stay apart.
type Panel struct {
	Title, YLabel string
	Names         []string
	Marks         []Marks
}

// WritePanelsPNG draws panels side by side as one PNG of width × height
// points.
func WritePanelsPNG(w io.Writer, width, height float64, panels ...Panel) error {
	ps := make([]*plot.Plot, len(panels))
	for i, pn := range panels {
		p, err := pn.plot()
		if err != nil {
			return err
		}
		ps[i] = p
	}
	img := vgimg.New(vg.Points(width), vg.Points(height))
	tiles := draw.Tiles{Rows: 1, Cols: len(ps), PadX: vg.Points(30), PadTop: vg.Points(10), PadBottom: vg.Points(10), PadLeft: vg.Points(10), PadRight: vg.Points(10)}
	canvases := plot.Align([][]*plot.Plot{ps}, tiles, draw.New(img))
	for i, p := range ps {
		p.Draw(canvases[0][i])
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// plot is pn on a gonum plot.
func (pn Panel) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = pn.Title
	p.Y.Label.Text = pn.YLabel
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.NominalX(pn.Names...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	for k, s := range pn.Marks {
		nudge := (float64(k) - float64(len(pn.Marks)-1)/2) * 0.6 / float64(max(len(pn.Marks), 1))
		var xys plotter.XYs
		for i, y := range s.Ys {
			if y > 0 && !math.IsNaN(y) && !math.IsInf(y, 0) {
				xys = append(xys, plotter.XY{X: float64(i) + nudge, Y: y})
			}
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: palette[s.Color%len(palette)], Radius: vg.Points(4), Shape: s.Glyph.drawer()}
		p.Add(sc)
		p.Legend.Add(s.Label, sc)
	}
	// Room for the legend above the data, and a margin below it.
	if p.Y.Min > 0 && p.Y.Max > p.Y.Min {
		p.Y.Min /= 1.5
		p.Y.Max *= 6
	}
	return p, nil
}
