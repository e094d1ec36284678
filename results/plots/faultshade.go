package plots

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// faultPalette colours fault windows by name (translucent fills).
var faultPalette = []color.NRGBA{
	{R: 0xe4, G: 0x1a, B: 0x1c, A: 0x38},
	{R: 0x98, G: 0x4e, B: 0xa3, A: 0x38},
	{R: 0xff, G: 0x7f, B: 0x00, A: 0x38},
	{R: 0x4d, G: 0xaf, B: 0x4a, A: 0x38},
	{R: 0xa6, G: 0x56, B: 0x28, A: 0x38},
	{R: 0xf7, G: 0x81, B: 0xbf, A: 0x38},
}

// faultShading is a plot.Plotter that shades each fault window over the
// whole y range and labels it with the fault's name along the top.
type faultShading struct {
	windows []faultWindow
	colors  map[string]color.NRGBA
}

// newFaultShading colours windows by name, in order of first appearance.
func newFaultShading(ws []faultWindow) *faultShading {
	fs := &faultShading{windows: ws, colors: map[string]color.NRGBA{}}
	for _, w := range ws {
		if _, ok := fs.colors[w.name]; !ok {
			fs.colors[w.name] = faultPalette[len(fs.colors)%len(faultPalette)]
		}
	}
	return fs
}

// opaque is c without its translucency, darkened a little, for text.
func opaque(c color.NRGBA) color.NRGBA {
	return color.NRGBA{R: c.R * 3 / 4, G: c.G * 3 / 4, B: c.B * 3 / 4, A: 0xff}
}

// Plot implements plot.Plotter.
func (fs *faultShading) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	sty := text.Style{
		Font:    font.From(plot.DefaultFont, 9),
		XAlign:  draw.XLeft,
		YAlign:  draw.YTop,
		Handler: p.TextHandler,
	}
	lineH := sty.FontExtents().Height * 1.15
	for i, w := range fs.windows {
		x0 := max(trX(seconds(w.start)), c.Min.X)
		x1 := min(trX(seconds(w.end)), c.Max.X)
		if x1 < x0 {
			continue
		}
		// A window shorter than a pixel or two still shows as a thin band.
		x1 = max(x1, x0+1.5)
		col := fs.colors[w.name]
		c.FillPolygon(col, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
		sty.Color = opaque(col)
		// Stagger labels over three rows so neighbouring windows stay legible.
		y := c.Max.Y - 3 - vg.Length(i%3)*lineH
		c.FillText(sty, vg.Point{X: x0 + 3, Y: y}, w.name)
	}
}

// DataRange implements plot.DataRanger: the x axis covers every window;
// the y axis is left to the data.
func (fs *faultShading) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, w := range fs.windows {
		xmin = math.Min(xmin, seconds(w.start))
		xmax = math.Max(xmax, seconds(w.end))
	}
	return xmin, xmax, math.Inf(1), math.Inf(-1)
}

// swatch is a legend thumbnail filled with one fault's colour.
type swatch color.NRGBA

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(color.NRGBA(s), []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
}

// addLegend adds one entry per fault name, in order of first appearance.
func (fs *faultShading) addLegend(l *plot.Legend) {
	seen := map[string]bool{}
	for _, w := range fs.windows {
		if !seen[w.name] {
			seen[w.name] = true
			l.Add("fault: "+w.name, swatch(fs.colors[w.name]))
		}
	}
}

// seconds converts history nanoseconds to plot seconds.
func seconds(ns int64) float64 { return float64(ns) / 1e9 }
