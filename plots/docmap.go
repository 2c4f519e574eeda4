package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Map holds a 2-D layout of documents and their labels.
type Map struct {
	// Title heads the figure (e.g. "ML test documents, t-SNE of θ").
	Title string
	// XY holds the coordinates, row-major (N, 2), as in tsne.Result.Y.
	XY []float64
	// Labels holds one label id per document; a negative id means
	// unlabelled (drawn in light grey, listed last in the legend).
	Labels []int
	// LabelNames names the label ids; ids without a name are shown as
	// "label k".
	LabelNames []string
}

var unlabelled = color.NRGBA{R: 0xbb, G: 0xbb, B: 0xbb, A: 0xff}

// DocumentMap draws one dot per document coloured by label, in input order
// (so no label is systematically painted over the others), with a legend of
// label names and document counts on the right. The axes are hidden: t-SNE
// coordinates have no units, only neighbourhoods matter.
func DocumentMap(m Map) (*Figure, error) {
	n := len(m.Labels)
	if n == 0 {
		return nil, errors.New("plots: document map with no documents")
	}
	if len(m.XY) != 2*n {
		return nil, fmt.Errorf("plots: document map has %d coordinates for %d documents, want %d", len(m.XY), n, 2*n)
	}
	xy := make(plotter.XYs, n)
	for i := range xy {
		x, y := m.XY[2*i], m.XY[2*i+1]
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, fmt.Errorf("plots: document %d has coordinates (%g, %g)", i, x, y)
		}
		xy[i] = plotter.XY{X: x, Y: y}
	}
	maxLabel := -1
	counts := map[int]int{}
	for _, l := range m.Labels {
		maxLabel = max(maxLabel, l)
		if l < 0 {
			l = -1
		}
		counts[l]++
	}
	// Smaller dots for bigger maps, so 3000 documents do not become a blob.
	radius := vg.Points(3)
	if n > 1000 {
		radius = vg.Points(2)
	}
	style := func(l int) draw.GlyphStyle {
		if l < 0 {
			return draw.GlyphStyle{Color: unlabelled, Radius: radius, Shape: draw.CircleGlyph{}}
		}
		c := color.NRGBAModel.Convert(colorFor(l)).(color.NRGBA)
		c.A = 0xd8 // slightly translucent: overlapping dots stay visible
		return draw.GlyphStyle{Color: c, Radius: radius, Shape: glyphFor(l)}
	}
	sc, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, fmt.Errorf("plots: document map: %w", err)
	}
	sc.GlyphStyleFunc = func(i int) draw.GlyphStyle { return style(m.Labels[i]) }

	title := m.Title
	if title == "" {
		title = fmt.Sprintf("%d documents", n)
	}
	p := newPlot(title, "", "")
	p.Add(sc)
	p.HideAxes()
	// A little margin so dots on the edge are not clipped by the frame.
	xmin, xmax, ymin, ymax := plotter.XYRange(xy)
	padX, padY := 0.03*(xmax-xmin)+1e-9, 0.03*(ymax-ymin)+1e-9
	p.X.Min, p.X.Max = xmin-padX, xmax+padX
	p.Y.Min, p.Y.Max = ymin-padY, ymax+padY
	frame := frameBox{}
	p.Add(frame)

	l := newLegend()
	ids := make([]int, 0, maxLabel+2)
	for id := 0; id <= maxLabel; id++ {
		if counts[id] > 0 {
			ids = append(ids, id)
		}
	}
	if counts[-1] > 0 {
		ids = append(ids, -1)
	}
	for _, id := range ids {
		name := fmt.Sprintf("label %d", id)
		switch {
		case id < 0:
			name = "unlabelled"
		case id < len(m.LabelNames) && m.LabelNames[id] != "":
			name = m.LabelNames[id]
		}
		thumb := &plotter.Scatter{GlyphStyle: style(id)}
		thumb.GlyphStyle.Radius = vg.Points(4)
		l.Add(fmt.Sprintf("%s (%d)", name, counts[id]), thumb)
	}
	return &Figure{width: 9 * vg.Inch, height: 7 * vg.Inch, draw: func(dc draw.Canvas) {
		drawWithLegends(dc, []*plot.Plot{p}, []plot.Legend{l})
	}}, nil
}

// frameBox draws a thin grey rectangle round the data area, in place of the
// hidden axes.
type frameBox struct{}

func (frameBox) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := draw.LineStyle{Color: color.Gray{Y: 0x99}, Width: vg.Points(0.75)}
	r := c.Rectangle
	c.StrokeLines(sty, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
}
