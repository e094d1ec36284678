// Package plots draws a run's latency and throughput plots (PNG, with fault
// windows shaded) with gonum/plot. Register hands them to
// results.RegisterPlots, so that run directories hold latency.png and
// throughput.png: the CLI calls it when it assembles itself; a locktest
// user, whose failures need text, does not build gonum/plot.
package plots

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Register makes results.WriteRun draw every run directory's latency.png
// and throughput.png with WriteLatencyPNG and WriteThroughputPNG. Call it
// once, before writing runs; calling it again changes nothing.
func Register() { results.RegisterPlots(WriteLatencyPNG, WriteThroughputPNG) }

// Plot geometry: 12 x 5 inches at 96 dpi is 1152 x 480 pixels.
const (
	plotWidth  = 12 * vg.Inch
	plotHeight = 5 * vg.Inch
	plotDPI    = 96
	// maxScatter caps the points drawn per outcome; beyond it every point
	// above the outcome's p99 is kept and the rest are thinned evenly.
	maxScatter = 20000
	// minLatency is the floor of the log latency axis (1 µs), in seconds.
	minLatency = 1e-6
)

var (
	colOK    = color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0x90}
	colFail  = color.NRGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xd0}
	colInfo  = color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	colP50   = color.NRGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	colP99   = color.NRGBA{R: 0x44, G: 0x00, B: 0x66, A: 0xff}
	colGrant = color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
)

// interval is o.Interval, or the one chooseInterval picks for h's span
// when o.Interval is unset or would cut it into more than maxBuckets.
func interval(o results.PlotOptions, h *model.History) time.Duration {
	_, last, _ := results.Span(h)
	for _, f := range h.Faults {
		last = max(last, f.Start, f.End)
	}
	if o.Interval > 0 && last/int64(o.Interval) < maxBuckets {
		return o.Interval
	}
	return chooseInterval(time.Duration(last))
}

// title is the plot's title: what, then o.Title when set.
func title(o results.PlotOptions, what string) string {
	if o.Title == "" {
		return what
	}
	return what + " — " + o.Title
}

// WriteLatencyPNG draws acquire latency over time as a PNG: one point per
// acquire at the time it was requested (ok, fail and info distinguished),
// per-interval p50 and p99 of granted acquires as lines, on a log latency
// axis, with fault windows shaded and labelled.
func WriteLatencyPNG(w io.Writer, h *model.History, o results.PlotOptions) error {
	if h == nil {
		h = &model.History{}
	}
	p := plot.New()
	p.Title.Text = title(o, "Acquire latency over time")
	p.X.Label.Text = "time the acquire was requested (seconds since run start)"
	p.Y.Label.Text = "acquire latency (log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = durationLogTicks{}
	style(p)
	leg := newLegend()

	fs := newFaultShading(faultWindows(h))
	p.Add(fs)
	anyPoint, err := addLatencyPoints(p, &leg, acquireLatencies(h))
	if err != nil {
		return err
	}
	if err := addLatencyQuantiles(p, &leg, h, interval(o, h)); err != nil {
		return err
	}
	fs.addLegend(&leg)
	if !anyPoint || p.Y.Min <= 0 || math.IsInf(p.Y.Min, 0) {
		p.Y.Min, p.Y.Max = minLatency, 1
	}
	// Leave headroom for the fault labels.
	p.Y.Max *= 4
	fromZero(p, h)
	return writePNG(w, p, leg)
}

// acquireLatencies returns each acquire's (request time, latency) in
// seconds, by outcome: ok, fail, info. Latencies are floored at minLatency
// for the log axis; ops with no return are left out.
func acquireLatencies(h *model.History) [3]plotter.XYs {
	var pts [3]plotter.XYs // ok, fail, info
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Kind != model.Acquire {
			continue
		}
		// An info op's return, when recorded, is when the client gave up.
		ret := op.Return
		if ret < op.Call || ret == math.MaxInt64 {
			continue
		}
		xy := plotter.XY{X: seconds(op.Call), Y: math.Max(seconds(ret-op.Call), minLatency)}
		switch op.Outcome {
		case model.OK:
			pts[0] = append(pts[0], xy)
		case model.Fail:
			pts[1] = append(pts[1], xy)
		case model.Info:
			pts[2] = append(pts[2], xy)
		}
	}
	return pts
}

// addLatencyPoints draws acquireLatencies' points, one glyph per outcome,
// thinned to maxScatter each, and reports whether there was any.
func addLatencyPoints(p *plot.Plot, leg *plot.Legend, pts [3]plotter.XYs) (bool, error) {
	styles := []struct {
		name  string
		glyph draw.GlyphStyle
	}{
		{"granted (ok)", draw.GlyphStyle{Color: colOK, Radius: 1.3, Shape: draw.CircleGlyph{}}},
		{"gave up (fail)", draw.GlyphStyle{Color: colFail, Radius: 2.2, Shape: draw.CrossGlyph{}}},
		{"unknown (info)", draw.GlyphStyle{Color: colInfo, Radius: 3, Shape: draw.TriangleGlyph{}}},
	}
	anyPoint := false
	for i, xys := range pts {
		if len(xys) == 0 {
			continue
		}
		anyPoint = true
		sc, err := plotter.NewScatter(thin(xys, maxScatter))
		if err != nil {
			return false, err
		}
		sc.GlyphStyle = styles[i].glyph
		p.Add(sc)
		name := styles[i].name
		if len(xys) > maxScatter {
			name += fmt.Sprintf(" (%d of %d)", maxScatter, len(xys))
		}
		leg.Add(name, sc)
	}
	return anyPoint, nil
}

// addLatencyQuantiles draws the p50 and p99 of granted acquires per
// interval iv as lines, broken where an interval has none.
func addLatencyQuantiles(p *plot.Plot, leg *plot.Legend, h *model.History, iv time.Duration) error {
	bs := series(h, iv)
	for _, q := range []struct {
		name  string
		col   color.Color
		dash  []vg.Length
		value func(bucket) int64
	}{
		{"p50 of granted per " + results.FormatDuration(iv), colP50, nil, func(b bucket) int64 { return b.p50 }},
		{"p99 of granted per " + results.FormatDuration(iv), colP99, []vg.Length{vg.Points(5), vg.Points(3)}, func(b bucket) int64 { return b.p99 }},
	} {
		lines, err := gappedLines(bs, iv, func(b bucket) (float64, bool) {
			v := q.value(b)
			return math.Max(seconds(v), minLatency), v > 0
		})
		if err != nil {
			return err
		}
		for _, l := range lines {
			l.LineStyle.Color = q.col
			l.LineStyle.Width = vg.Points(1.5)
			l.LineStyle.Dashes = q.dash
			p.Add(l)
		}
		if len(lines) > 0 {
			leg.Add(q.name, lines[0])
		}
	}
	return nil
}

// fromZero starts the time axis at 0 at the latest, and gives an empty
// history a one-second axis.
func fromZero(p *plot.Plot, h *model.History) {
	p.X.Min = math.Min(p.X.Min, 0)
	if len(h.Ops) == 0 && len(h.Faults) == 0 {
		p.X.Max = 1
	}
}

// WriteThroughputPNG draws grants per second over time as a PNG, per
// interval (by the time the grant returned), with failed acquires and info
// ops per second, and fault windows shaded and labelled.
func WriteThroughputPNG(w io.Writer, h *model.History, o results.PlotOptions) error {
	if h == nil {
		h = &model.History{}
	}
	iv := interval(o, h)
	p := plot.New()
	p.Title.Text = title(o, "Throughput over time")
	p.X.Label.Text = "time (seconds since run start)"
	p.Y.Label.Text = fmt.Sprintf("per second (in %s intervals)", results.FormatDuration(iv))
	style(p)
	p.Y.Tick.Marker = roundTicks{}
	leg := newLegend()

	fs := newFaultShading(faultWindows(h))
	p.Add(fs)
	bs := series(h, iv)
	top, err := addRates(p, &leg, bs, iv)
	if err != nil {
		return err
	}
	infoTop, err := addInfoRates(p, &leg, bs, iv)
	if err != nil {
		return err
	}
	fs.addLegend(&leg)
	if _, last, ok := results.Span(h); ok {
		p.X.Max = math.Max(p.X.Max, seconds(last))
	}
	p.Y.Min = 0
	// Leave headroom for the fault labels.
	p.Y.Max = math.Max(max(top, infoTop)*1.25, 1)
	fromZero(p, h)
	return writePNG(w, p, leg)
}

// addRates draws grants and failed acquires per second per interval iv
// (leaving out intervals with too little of the run in them, and an
// all-zero series of failures) and returns the highest rate drawn.
func addRates(p *plot.Plot, leg *plot.Legend, bs []bucket, iv time.Duration) (float64, error) {
	var top float64
	for _, s := range []struct {
		name  string
		col   color.Color
		dash  []vg.Length
		value func(bucket) int
	}{
		{"grants/s (ok acquires)", colGrant, nil, func(b bucket) int { return b.grants }},
		{"failed acquires/s", colFail, []vg.Length{vg.Points(5), vg.Points(3)}, func(b bucket) int { return b.fails }},
	} {
		var xys plotter.XYs
		total := 0
		for _, b := range bs {
			if b.width < int64(iv)/4 {
				continue // too little of the run in it for a rate
			}
			v := s.value(b)
			total += v
			y := float64(v) / seconds(b.width)
			xys = append(xys, plotter.XY{X: seconds(b.start + int64(iv)/2), Y: y})
			top = math.Max(top, y)
		}
		if len(xys) == 0 || (total == 0 && s.name != "grants/s (ok acquires)") {
			continue // an all-zero series of failures is noise
		}
		l, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			return 0, err
		}
		l.LineStyle.Color, l.LineStyle.Width, l.LineStyle.Dashes = s.col, vg.Points(1.5), s.dash
		sc.GlyphStyle = draw.GlyphStyle{Color: s.col, Radius: 1.6, Shape: draw.CircleGlyph{}}
		p.Add(l, sc)
		leg.Add(s.name, l, sc)
	}
	return top, nil
}

// addInfoRates marks info ops per second in the intervals that have any
// (they are rare) and returns the highest rate marked.
func addInfoRates(p *plot.Plot, leg *plot.Legend, bs []bucket, iv time.Duration) (float64, error) {
	var top float64
	var infos plotter.XYs
	for _, b := range bs {
		if b.infos > 0 {
			y := float64(b.infos) / seconds(max(b.width, int64(iv)/4))
			infos = append(infos, plotter.XY{X: seconds(b.start + int64(iv)/2), Y: y})
			top = math.Max(top, y)
		}
	}
	if len(infos) == 0 {
		return 0, nil
	}
	sc, err := plotter.NewScatter(infos)
	if err != nil {
		return 0, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: colInfo, Radius: 3.5, Shape: draw.TriangleGlyph{}}
	p.Add(sc)
	leg.Add("info ops/s (outcome unknown)", sc)
	return top, nil
}

// style sets the fonts, padding and time ticks both plots share.
func style(p *plot.Plot) {
	p.Title.Padding = vg.Points(10)
	p.Title.TextStyle.Font.Size = vg.Points(14)
	p.X.Tick.Marker = secondTicks{}
	p.X.Label.Padding = vg.Points(4)
	p.Y.Label.Padding = vg.Points(4)
	p.Add(plotter.NewGrid())
}

// newLegend returns a legend whose entries do not crowd each other.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(11)
	l.Padding = vg.Points(4)
	l.ThumbnailWidth = vg.Points(24)
	return l
}

// secondTicks marks a time axis in seconds with at most a dozen labelled
// ticks at a round step.
type secondTicks struct{}

// Ticks implements plot.Ticker.
func (secondTicks) Ticks(lo, hi float64) []plot.Tick {
	steps := []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600}
	return stepTicks(lo, hi, pickStep(lo, hi, 12, steps))
}

// roundTicks marks a linear axis with at most eight labelled ticks at a step
// of 1, 2 or 5 times a power of ten.
type roundTicks struct{}

// Ticks implements plot.Ticker.
func (roundTicks) Ticks(lo, hi float64) []plot.Tick {
	var steps []float64
	for e := -3.0; e <= 9; e++ {
		for _, m := range []float64{1, 2, 5} {
			steps = append(steps, m*math.Pow(10, e))
		}
	}
	return stepTicks(lo, hi, pickStep(lo, hi, 8, steps))
}

// pickStep returns the smallest step giving at most n intervals: one of
// steps, or beyond the last one 1, 2 or 5 times a power of ten.
func pickStep(lo, hi float64, n int, steps []float64) float64 {
	for _, s := range steps {
		if (hi-lo)/s <= float64(n) {
			return s
		}
	}
	want := (hi - lo) / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(want)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= want {
			return m * p
		}
	}
	return 10 * p
}

// stepTicks labels every multiple of step in [lo, hi], with an unlabelled
// tick halfway between.
func stepTicks(lo, hi, step float64) []plot.Tick {
	dec := 0 // decimals that show step exactly
	for dec < 6 && math.Abs(step*math.Pow10(dec)-math.Round(step*math.Pow10(dec))) > 1e-9 {
		dec++
	}
	var ticks []plot.Tick
	first := math.Ceil(lo / step * 2)
	for i := range 2 * maxTicks { // bounded whatever lo, hi and step are
		k := first + float64(i)
		if k/2*step > hi+step*1e-9 {
			break
		}
		t := plot.Tick{Value: k / 2 * step}
		if math.Mod(k, 2) == 0 {
			t.Label = strconv.FormatFloat(t.Value, 'f', dec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// gappedLines draws value over the buckets as lines, broken where a bucket
// has no value.
func gappedLines(bs []bucket, iv time.Duration, value func(bucket) (float64, bool)) ([]*plotter.Line, error) {
	var out []*plotter.Line
	var cur plotter.XYs
	flush := func() error {
		if len(cur) == 0 {
			return nil
		}
		if len(cur) == 1 { // a lone bucket still shows as a short flat segment
			half := seconds(int64(iv)) / 4
			cur = plotter.XYs{{X: cur[0].X - half, Y: cur[0].Y}, {X: cur[0].X + half, Y: cur[0].Y}}
		}
		l, err := plotter.NewLine(cur)
		if err != nil {
			return err
		}
		out = append(out, l)
		cur = nil
		return nil
	}
	for _, b := range bs {
		v, ok := value(b)
		if !ok {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		cur = append(cur, plotter.XY{X: seconds(b.start + int64(iv)/2), Y: v})
	}
	return out, flush()
}

// thin keeps at most n points: every point at or above the p99 of Y, and an
// evenly spaced selection of the rest. It is deterministic.
func thin(xys plotter.XYs, n int) plotter.XYs {
	if len(xys) <= n {
		return xys
	}
	ys := make([]float64, len(xys))
	for i, xy := range xys {
		ys[i] = xy.Y
	}
	slices.Sort(ys)
	cut := ys[len(ys)*99/100]
	var high, low plotter.XYs
	for _, xy := range xys {
		if xy.Y >= cut {
			high = append(high, xy)
		} else {
			low = append(low, xy)
		}
	}
	room := max(n-len(high), 0)
	out := high
	if room > 0 && len(low) > 0 {
		step := float64(len(low)) / float64(room)
		for i := 0; i < room; i++ {
			out = append(out, low[int(float64(i)*step)])
		}
	}
	return out[:min(len(out), n)]
}

// durationLogTicks marks a log axis in seconds with one labelled tick per
// decade ("1µs", "10ms", "1s") and unlabelled ticks between.
type durationLogTicks struct{}

// Ticks implements plot.Ticker.
func (durationLogTicks) Ticks(lo, hi float64) []plot.Tick {
	lo, hi = math.Max(lo, 1e-9), math.Max(hi, 1e-9)
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		dec := math.Pow(10, e)
		ticks = append(ticks, plot.Tick{Value: dec, Label: results.FormatDuration(time.Duration(math.Round(dec * 1e9)))})
		for i := 2; i < 10; i++ {
			ticks = append(ticks, plot.Tick{Value: dec * float64(i)})
		}
	}
	return ticks
}

// writePNG draws p with its legend in a strip to the right of the plot.
func writePNG(w io.Writer, p *plot.Plot, leg plot.Legend) error {
	img := vgimg.NewWith(vgimg.UseWH(plotWidth, plotHeight), vgimg.UseDPI(plotDPI), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	pad := vg.Points(8)
	var legW vg.Length
	if wd := leg.Rectangle(dc).Size().X; wd > 1 {
		legW = wd + 2*pad
	}
	pc := dc
	pc.Max.X -= legW
	p.Draw(draw.Crop(pc, pad/2, 0, pad/2, -pad/2))
	if legW > 0 {
		lc := dc
		lc.Min.X = pc.Max.X
		lc = draw.Crop(lc, pad, -pad, 0, -2*pad)
		leg.Top, leg.Left = true, true
		leg.Draw(lc)
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}
