package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Ablation holds the results of an ablation study: for each variant, the
// mean and standard deviation over seeds of each metric.
type Ablation struct {
	// Title heads the figure (e.g. "ML: ablations (5 seeds)").
	Title string
	// Metrics name the groups along the x axis (e.g. "kNN Micro-F1",
	// "link AUC").
	Metrics []string
	// Variants are the bars within each group, in legend order.
	Variants []Variant
	// YLabel labels the value axis (default "score").
	YLabel string
}

// Variant is one bar colour: a model variant measured on every metric.
type Variant struct {
	Name string
	// Mean[m] is the mean of metric m over seeds; NaN leaves the bar out.
	Mean []float64
	// Std[m] is the standard deviation over seeds, drawn as an error bar
	// of ±Std; nil or NaN draws none.
	Std []float64
	// Paper[m] is the paper's figure for this variant and metric, drawn as
	// a black line across the bar; nil or NaN draws none.
	Paper []float64
}

// AblationBars draws grouped bars, one group per metric and one bar per
// variant, with ±std error bars, the mean printed above each bar (when there
// is room), and the paper's figures as black lines across the bars.
func AblationBars(a Ablation) (*Figure, error) {
	if err := a.validate(); err != nil {
		return nil, err
	}
	yLabel := a.YLabel
	if yLabel == "" {
		yLabel = "score"
	}
	p := newPlot(a.Title, "", yLabel)
	p.Add(&plotter.Grid{Horizontal: plotter.DefaultGridLineStyle})
	bars := &groupedBars{a: a, labels: len(a.Variants)*len(a.Metrics) <= 24}
	p.Add(bars)
	p.NominalX(a.Metrics...)
	p.X.Tick.Label.Font = font.From(sans, 11)
	lo, _ := bars.extent()
	_, _, _, hi := bars.DataRange()
	p.Y.Min, p.Y.Max = valueAxis(lo, hi)

	l := newLegend()
	for v, variant := range a.Variants {
		l.Add(variant.Name, swatch{colorFor(v)})
	}
	if bars.hasPaper() {
		l.Add("paper", paperThumb{})
	}
	n := len(a.Metrics) * len(a.Variants)
	width := vg.Length(max(6, min(12, 2.5+0.45*float64(n)))) * vg.Inch
	return &Figure{width: width, height: 4.5 * vg.Inch, draw: func(dc draw.Canvas) {
		drawWithLegends(dc, []*plot.Plot{p}, []plot.Legend{l})
	}}, nil
}

func (a Ablation) validate() error {
	if len(a.Metrics) == 0 {
		return errors.New("plots: ablation with no metrics")
	}
	if len(a.Variants) == 0 {
		return errors.New("plots: ablation with no variants")
	}
	finite := 0
	for _, v := range a.Variants {
		check := func(what string, xs []float64, optional bool) error {
			if xs == nil && optional {
				return nil
			}
			if len(xs) != len(a.Metrics) {
				return fmt.Errorf("plots: variant %q has %d %s values for %d metrics", v.Name, len(xs), what, len(a.Metrics))
			}
			for m, x := range xs {
				if math.IsInf(x, 0) || (what == "std" && x < 0) {
					return fmt.Errorf("plots: variant %q: %s of %q is %g", v.Name, what, a.Metrics[m], x)
				}
			}
			return nil
		}
		if err := check("mean", v.Mean, false); err != nil {
			return err
		}
		if err := check("std", v.Std, true); err != nil {
			return err
		}
		if err := check("paper", v.Paper, true); err != nil {
			return err
		}
		for _, x := range v.Mean {
			if !math.IsNaN(x) {
				finite++
			}
		}
	}
	if finite == 0 {
		return errors.New("plots: ablation with no measured values")
	}
	return nil
}

// groupedBars is a plot.Plotter drawing the bars in data coordinates: metric
// m is centred at x = m, and its variants share 80% of the unit interval, so
// bars, error bars and paper lines line up whatever the figure's size.
type groupedBars struct {
	a      Ablation
	labels bool // print the mean above each bar
}

const groupWidth = 0.8 // fraction of the space between groups used by bars

// span returns the x interval of variant v's bar in group m.
func (b *groupedBars) span(m, v int) (x0, x1 float64) {
	slot := groupWidth / float64(len(b.a.Variants))
	x0 = float64(m) - groupWidth/2 + float64(v)*slot
	return x0 + 0.06*slot, x0 + 0.94*slot
}

func at(xs []float64, i int) float64 {
	if xs == nil {
		return math.NaN()
	}
	return xs[i]
}

func (b *groupedBars) hasPaper() bool {
	for _, v := range b.a.Variants {
		for _, x := range v.Paper {
			if !math.IsNaN(x) {
				return true
			}
		}
	}
	return false
}

// DataRange implements plot.DataRanger: bars start at zero and reach
// mean ± std and the paper's figure.
func (b *groupedBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = -0.5, float64(len(b.a.Metrics))-0.5
	lo, hi := b.extent()
	ymin, ymax = math.Min(0, lo), math.Max(0, hi)
	if ymin == ymax {
		ymax = ymin + 1
	}
	return xmin, xmax, ymin, ymax
}

// extent returns the smallest and largest drawn values (mean ± std and the
// paper's figures); +Inf and −Inf when there is none.
func (b *groupedBars) extent() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range b.a.Variants {
		for m := range b.a.Metrics {
			mean, std, paper := v.Mean[m], at(v.Std, m), at(v.Paper, m)
			if math.IsNaN(std) {
				std = 0
			}
			for _, y := range []float64{mean - std, mean + std, paper} {
				if !math.IsNaN(y) {
					lo, hi = math.Min(lo, y), math.Max(hi, y)
				}
			}
		}
	}
	return lo, hi
}

// valueAxis returns the value axis of an ablation chart whose smallest
// drawn value is dataMin and whose bars, drawn from zero, reach hi (the
// top of DataRange). Ablations move scores by a point or two, invisible on
// a 0-100 axis, so when every value is positive and high the axis starts
// at a round number below the smallest value (the printed values above the
// bars keep the chart honest); otherwise it starts at zero, or at dataMin
// when that is negative. The top leaves room for the value labels.
func valueAxis(dataMin, hi float64) (ymin, ymax float64) {
	ymin = math.Min(0, dataMin)
	if dataMin > 0.4*hi && !math.IsInf(dataMin, 0) {
		span := hi - dataMin
		step := math.Pow(10, math.Floor(math.Log10(math.Max(span, 1e-9))))
		if span/step < 2 {
			step /= 2
		}
		ymin = math.Max(0, step*math.Floor((dataMin-0.5*span)/step))
	}
	return ymin, hi + 0.08*(hi-ymin)
}

// Plot implements plot.Plotter.
func (b *groupedBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	errSty := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	paperSty := draw.LineStyle{Color: color.Black, Width: vg.Points(2.5)}
	labelSty := draw.TextStyle{Color: color.Black, Font: font.From(sans, 8),
		XAlign: draw.XCenter, YAlign: draw.YBottom, Handler: p.TextHandler}
	for v, variant := range b.a.Variants {
		for m := range b.a.Metrics {
			mean := variant.Mean[m]
			if math.IsNaN(mean) {
				continue
			}
			x0, x1 := b.span(m, v)
			xc := (x0 + x1) / 2
			rect := []vg.Point{
				{X: trX(x0), Y: trY(0)}, {X: trX(x1), Y: trY(0)},
				{X: trX(x1), Y: trY(mean)}, {X: trX(x0), Y: trY(mean)},
			}
			c.FillPolygon(colorFor(v), c.ClipPolygonY(rect))
			top := mean
			if std := at(variant.Std, m); !math.IsNaN(std) && std > 0 {
				cap := (x1 - x0) / 4
				c.StrokeLine2(errSty, trX(xc), trY(mean-std), trX(xc), trY(mean+std))
				c.StrokeLine2(errSty, trX(xc-cap), trY(mean+std), trX(xc+cap), trY(mean+std))
				c.StrokeLine2(errSty, trX(xc-cap), trY(mean-std), trX(xc+cap), trY(mean-std))
				top = mean + std
			}
			if paper := at(variant.Paper, m); !math.IsNaN(paper) {
				c.StrokeLine2(paperSty, trX(x0), trY(paper), trX(x1), trY(paper))
				top = math.Max(top, paper)
			}
			if b.labels {
				c.FillText(labelSty, vg.Point{X: trX(xc), Y: trY(top) + vg.Points(2)}, formatValue(mean))
			}
		}
	}
}

// formatValue prints a score with three significant decimals for values in
// [0, 1] (F1, AUC) and fewer digits for larger ones.
func formatValue(v float64) string {
	switch a := math.Abs(v); {
	case a < 10:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case a < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

// swatch is a legend thumbnail: a filled square of one colour.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	x0 := (c.Min.X + c.Max.X - h) / 2
	c.FillPolygon(s.c, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x0 + h, Y: c.Min.Y},
		{X: x0 + h, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
}

// paperThumb is the legend thumbnail for the paper's figures.
type paperThumb struct{}

func (paperThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(2.5)}, c.Min.X, y, c.Max.X, y)
}
