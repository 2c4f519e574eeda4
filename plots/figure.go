package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/gtformer/gtformer/internal/atomicfile"
)

// DPI is the resolution of PNG output: 150 dots per inch keeps text crisp on
// a laptop screen while an 8-inch-wide figure stays under 100 KB.
const DPI = 150

// Figure is a finished drawing that can be written as PNG or SVG. Build one
// with LearningCurves, AblationBars or DocumentMap.
type Figure struct {
	width, height vg.Length
	draw          func(c draw.Canvas)
}

// Size returns the figure's width and height.
func (f *Figure) Size() (width, height vg.Length) { return f.width, f.height }

// Render writes the figure to w in the given format, "png" or "svg".
func (f *Figure) Render(w io.Writer, format string) error {
	switch format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(DPI))
		f.paint(draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
			return fmt.Errorf("plots: encode PNG: %w", err)
		}
	case "svg":
		c := vgsvg.New(f.width, f.height)
		f.paint(draw.New(c))
		if _, err := c.WriteTo(w); err != nil {
			return fmt.Errorf("plots: encode SVG: %w", err)
		}
	default:
		return fmt.Errorf("plots: unknown format %q (want png or svg)", format)
	}
	return nil
}

// paint fills the whole canvas white (an SVG is otherwise transparent
// outside the plots, and unreadable on a dark page) and draws the figure.
func (f *Figure) paint(c draw.Canvas) {
	r := c.Rectangle
	c.FillPolygon(color.White, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}})
	f.draw(c)
}

// Save writes the figure as base.png and base.svg (a trailing .png or .svg
// on base is dropped). Each file is written atomically: a reader sees the
// old file or the complete new one, never a partial image.
func (f *Figure) Save(base string) error {
	if ext := filepath.Ext(base); ext == ".png" || ext == ".svg" {
		base = strings.TrimSuffix(base, ext)
	}
	for _, format := range []string{"png", "svg"} {
		path := base + "." + format
		// Rendered first, so that what atomicfile reports is its writing
		// alone and the message names this package once.
		var img bytes.Buffer
		if err := f.Render(&img, format); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(path, func(w io.Writer) error {
			_, err := w.Write(img.Bytes())
			return err
		}); err != nil {
			return fmt.Errorf("plots: %w", err)
		}
	}
	return nil
}

// palette is matplotlib's "tab10" (Tableau 10): ten hues that stay
// distinguishable on screen and in print. Beyond ten, colours repeat with a
// different glyph shape (see glyphFor).
var palette = []color.Color{
	rgb(0x1f77b4), rgb(0xff7f0e), rgb(0x2ca02c), rgb(0xd62728), rgb(0x9467bd),
	rgb(0x8c564b), rgb(0xe377c2), rgb(0x7f7f7f), rgb(0xbcbd22), rgb(0x17becf),
}

func rgb(v uint32) color.NRGBA {
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// colorFor returns the i-th categorical colour.
func colorFor(i int) color.Color { return palette[i%len(palette)] }

// glyphFor returns a filled glyph shape for the i-th category, changing shape
// each time the colours wrap around.
func glyphFor(i int) draw.GlyphDrawer {
	switch (i / len(palette)) % 4 {
	case 0:
		return draw.CircleGlyph{}
	case 1:
		return draw.SquareGlyph{}
	case 2:
		return draw.TriangleGlyph{}
	default:
		return draw.PyramidGlyph{}
	}
}

// sans is the typeface for all text: Liberation Sans ships inside gonum/plot
// (codeberg.org/go-fonts/liberation), so rendering needs no system fonts and
// no network.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot returns a plot with sans-serif text at sizes readable in a
// half-page figure.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 13)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 9)
	}
	p.Legend.TextStyle.Font = font.From(sans, 10)
	return p
}

// newLegend returns an empty legend in the figure's style, drawn to the right
// of a plot by drawWithLegends.
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sans, 10)
	l.Top, l.Left = true, true
	l.Padding = vg.Points(2)
	l.ThumbnailWidth = vg.Points(16)
	return l
}

// legendWidth is the width a legend needs, plus a margin on each side.
func legendWidth(l *plot.Legend, c draw.Canvas) vg.Length {
	r := l.Rectangle(c)
	return r.Max.X - r.Min.X + 2*legendMargin
}

const legendMargin = 8 // points around a side legend

// drawWithLegends draws plots stacked vertically, their data areas aligned,
// each with its legend in a common strip on the right (outside the data, so
// no curve or point is hidden under a label).
func drawWithLegends(c draw.Canvas, ps []*plot.Plot, ls []plot.Legend) {
	var strip vg.Length
	for i := range ls {
		strip = max(strip, legendWidth(&ls[i], c))
	}
	plotArea := c
	plotArea.Max.X -= strip
	rows := make([][]*plot.Plot, len(ps))
	for i, p := range ps {
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(ps), Cols: 1, PadY: vg.Points(10), PadTop: vg.Points(4),
		PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	canvases := plot.Align(rows, tiles, plotArea)
	for i, p := range ps {
		pc := canvases[i][0]
		p.Draw(pc)
		// Top of the legend level with the top of the data area.
		data := p.DataCanvas(pc)
		lc := c
		lc.Min.X = c.Max.X - strip + legendMargin
		lc.Max.Y = data.Max.Y
		lc.Min.Y = pc.Min.Y
		ls[i].Draw(lc)
	}
}
