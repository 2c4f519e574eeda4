package plots

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one named curve: Values[i] belongs to the i-th epoch of the
// enclosing Curves. NaN marks an epoch where the value was not measured
// (validation every few epochs, say); the line joins the measured points.
type Series struct {
	Name   string
	Values []float64
}

// Curves holds the per-epoch record of one training run.
type Curves struct {
	// Title heads the figure (e.g. the run name).
	Title string
	// Epoch numbers the x axis.
	Epoch []int
	// Loss holds the loss parts (e.g. graph, topic, sup, total), drawn in
	// the upper panel. When all of them are positive and they span more
	// than a factor of 50, the panel uses a logarithmic axis so the small
	// parts stay visible.
	Loss []Series
	// Validation holds validation metrics (e.g. kNN Micro-F1, link AUC),
	// drawn in the lower panel.
	Validation []Series
}

// LearningCurves draws losses (upper panel) and validation metrics (lower
// panel) against the epoch, with aligned x axes and legends on the right. A
// panel with no series is left out; series whose values are all NaN are
// left out too. It is an error if nothing is left to draw.
func LearningCurves(c Curves) (*Figure, error) {
	if len(c.Epoch) == 0 {
		return nil, errors.New("plots: learning curves with no epochs")
	}
	type panel struct {
		yLabel string
		series []Series
		points bool // mark every value (validation is typically sparse)
	}
	var ps []*plot.Plot
	var ls []plot.Legend
	for pi, pan := range []panel{{"loss", c.Loss, false}, {"validation score", c.Validation, true}} {
		xys, names, err := finiteSeries(c.Epoch, pan.series)
		if err != nil {
			return nil, err
		}
		if len(xys) == 0 {
			continue
		}
		p := newPlot("", "epoch", pan.yLabel)
		if pi == 0 && useLogScale(xys) {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
			p.Y.Label.Text = "loss (log scale)"
		}
		p.Add(plotter.NewGrid())
		l := newLegend()
		for i, xy := range xys {
			sty := draw.LineStyle{Color: colorFor(i), Width: vg.Points(1.5)}
			if i >= len(palette) {
				sty.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			}
			var thumbs []plot.Thumbnailer
			if len(xy) > 1 {
				line, err := plotter.NewLine(xy)
				if err != nil {
					return nil, fmt.Errorf("plots: series %q: %w", names[i], err)
				}
				line.LineStyle = sty
				p.Add(line)
				thumbs = append(thumbs, line)
			}
			if pan.points || len(xy) == 1 {
				sc, err := plotter.NewScatter(xy)
				if err != nil {
					return nil, fmt.Errorf("plots: series %q: %w", names[i], err)
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: colorFor(i), Radius: vg.Points(2.5), Shape: glyphFor(i)}
				p.Add(sc)
				thumbs = append(thumbs, sc)
			}
			l.Add(names[i], thumbs...)
		}
		ps = append(ps, p)
		ls = append(ls, l)
	}
	if len(ps) == 0 {
		return nil, errors.New("plots: learning curves with no measured values")
	}
	if c.Title != "" {
		ps[0].Title.Text = c.Title
	}
	// Integer epochs: no tick at 2.5 when there are few of them.
	lo, hi := c.Epoch[0], c.Epoch[0]
	for _, e := range c.Epoch {
		lo, hi = min(lo, e), max(hi, e)
	}
	xMin, xMax := float64(lo), float64(hi)
	if lo == hi { // a single epoch: give the axis some width
		xMin, xMax = xMin-1, xMax+1
	}
	for _, p := range ps {
		// Same x range in both panels, even where validation starts late.
		p.X.Min, p.X.Max = xMin, xMax
		p.X.Tick.Marker = integerTicks{}
	}
	height := vg.Inch/2 + vg.Length(len(ps))*3*vg.Inch // title + panels
	return &Figure{width: 8 * vg.Inch, height: height, draw: func(dc draw.Canvas) {
		drawWithLegends(dc, ps, ls)
	}}, nil
}

// finiteSeries checks the series against the epochs and returns, for each
// series with at least one finite value, its (epoch, value) points.
func finiteSeries(epoch []int, series []Series) ([]plotter.XYs, []string, error) {
	var xys []plotter.XYs
	var names []string
	for _, s := range series {
		if len(s.Values) != len(epoch) {
			return nil, nil, fmt.Errorf("plots: series %q has %d values for %d epochs", s.Name, len(s.Values), len(epoch))
		}
		var xy plotter.XYs
		for i, v := range s.Values {
			if math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("plots: series %q is infinite at epoch %d", s.Name, epoch[i])
			}
			if !math.IsNaN(v) {
				xy = append(xy, plotter.XY{X: float64(epoch[i]), Y: v})
			}
		}
		if len(xy) > 0 {
			xys = append(xys, xy)
			names = append(names, s.Name)
		}
	}
	return xys, names, nil
}

// useLogScale reports whether all values are positive and span more than a
// factor of 50.
func useLogScale(xys []plotter.XYs) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, xy := range xys {
		for _, p := range xy {
			lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
		}
	}
	return lo > 0 && hi/lo > 50
}

// integerTicks places major ticks on multiples of a 1-2-5 step chosen for
// at most eight labels, and minor ticks between them on whole numbers only:
// epochs are integers, so a tick at 12.5 would mislead.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	step := 1.0
	for mag := 1.0; ; mag *= 10 {
		if span/(1*mag) <= 8 {
			step = 1 * mag
			break
		}
		if span/(2*mag) <= 8 {
			step = 2 * mag
			break
		}
		if span/(5*mag) <= 8 {
			step = 5 * mag
			break
		}
	}
	minor := step / 5
	if step == 2 || minor < 1 {
		minor = 1
	}
	if step == 1 {
		minor = 0
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
	}
	if minor > 0 {
		for v := math.Ceil(lo/minor) * minor; v <= hi; v += minor {
			if math.Mod(v, step) != 0 {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}
