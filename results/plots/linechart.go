package plots

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Line is one line of a LineChart: points (x, y), in order.
type Line struct {
	Label string
	XYs   [][2]float64
	Color int
	// Dashed draws the line dashed, its points as triangles.
	Dashed bool
}

// LineChart is a plot of lines on numeric axes.
type LineChart struct {
	Title, XLabel, YLabel string
	// LogX puts x on a log scale; XTicks, when set, are its only ticks.
	LogX   bool
	XTicks []float64
	// YFromZero starts y at 0; YMax, when > 0, ends it there.
	YFromZero bool
	YMax      float64
	// LegendLeft and LegendBelow move the legend from the top right.
	LegendLeft, LegendBelow bool
	Lines                   []Line
}

// SavePNG draws c as a PNG of width × height points at path.
func (c LineChart) SavePNG(path string, width, height float64) error {
	p, err := c.plot()
	if err != nil {
		return err
	}
	return p.Save(vg.Points(width), vg.Points(height), path)
}

func (c LineChart) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = c.Title, c.XLabel, c.YLabel
	if c.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if len(c.XTicks) > 0 {
		var ticks plot.ConstantTicks
		for _, x := range c.XTicks {
			ticks = append(ticks, plot.Tick{Value: x, Label: fmt.Sprint(x)})
		}
		p.X.Tick.Marker = ticks
	}
	p.Legend.Top, p.Legend.Left = !c.LegendBelow, c.LegendLeft
	p.Add(plotter.NewGrid())
	for _, l := range c.Lines {
		if err := addLine(p, l); err != nil {
			return nil, err
		}
	}
	if c.YFromZero {
		p.Y.Min = 0
	}
	if c.YMax > 0 {
		p.Y.Max = c.YMax
	}
	return p, nil
}

// addLine draws l on p (no points: nothing).
func addLine(p *plot.Plot, l Line) error {
	if len(l.XYs) == 0 {
		return nil
	}
	xys := make(plotter.XYs, len(l.XYs))
	for i, xy := range l.XYs {
		xys[i] = plotter.XY{X: xy[0], Y: xy[1]}
	}
	line, s, err := plotter.NewLinePoints(xys)
	if err != nil {
		return err
	}
	line.Color, s.Color = palette[l.Color%len(palette)], palette[l.Color%len(palette)]
	if l.Dashed {
		line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		s.Shape = draw.TriangleGlyph{}
	}
	p.Add(line, s)
	p.Legend.Add(l.Label, line, s)
	return nil
}
