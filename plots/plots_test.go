package plots

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// render returns the PNG and SVG bytes of a figure.
func render(t *testing.T, f *Figure) (pngBytes, svgBytes []byte) {
	t.Helper()
	var p, s bytes.Buffer
	if err := f.Render(&p, "png"); err != nil {
		t.Fatal(err)
	}
	if err := f.Render(&s, "svg"); err != nil {
		t.Fatal(err)
	}
	return p.Bytes(), s.Bytes()
}

func figures(t *testing.T) map[string]*Figure {
	t.Helper()
	out := map[string]*Figure{}
	var err error
	if out["curves"], err = LearningCurves(sampleCurves()); err != nil {
		t.Fatal(err)
	}
	if out["ablation"], err = AblationBars(sampleAblation()); err != nil {
		t.Fatal(err)
	}
	if out["map"], err = DocumentMap(sampleMap(300)); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestValidAndDeterministic: every figure is a decodable PNG of the stated
// size at DPI and a well-formed SVG, identical byte for byte when drawn
// twice, and its text (title, legend) is in the SVG.
func TestValidAndDeterministic(t *testing.T) {
	wantText := map[string][]string{
		"curves":   {"ml seed 1 (unsupervised)", "kNN Micro-F1", "link AUC", "total", "epoch", "loss (log scale)"},
		"ablation": {"ML ablations (5 seeds)", "w/o graph hierarchy", "paper", "link AUC", "0.842"},
		"map":      {"Neural_Networks (", "unlabelled (", "ML test documents"},
	}
	for name, fig := range figures(t) {
		p1, s1 := render(t, fig)
		img, err := png.Decode(bytes.NewReader(p1))
		if err != nil {
			t.Fatalf("%s: PNG does not decode: %v", name, err)
		}
		w, h := fig.Size()
		wantW, wantH := int(math.Round(w.Dots(DPI))), int(math.Round(h.Dots(DPI)))
		if b := img.Bounds(); b.Dx() != wantW || b.Dy() != wantH {
			t.Errorf("%s: PNG is %dx%d, want %dx%d", name, b.Dx(), b.Dy(), wantW, wantH)
		}
		if !bytes.HasPrefix(s1, []byte("<?xml")) && !bytes.HasPrefix(s1, []byte("<svg")) {
			t.Errorf("%s: SVG starts with %q", name, s1[:min(20, len(s1))])
		}
		if err := wellFormedXML(s1); err != nil {
			t.Errorf("%s: SVG is not well-formed XML: %v", name, err)
		}
		for _, txt := range wantText[name] {
			if !bytes.Contains(s1, []byte(txt)) {
				t.Errorf("%s: SVG lacks the text %q", name, txt)
			}
		}
		p2, s2 := render(t, fig)
		if !bytes.Equal(p1, p2) || !bytes.Equal(s1, s2) {
			t.Errorf("%s: two renderings differ", name)
		}
	}
}

// wellFormedXML reads every token of doc and checks that it has an <svg>
// root element.
func wellFormedXML(doc []byte) error {
	d := xml.NewDecoder(bytes.NewReader(doc))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		return fmt.Errorf("root element %q, want svg", root)
	}
	return nil
}

// countNear counts pixels within a small distance of colour c (anti-aliased
// edges blend, but the centre of a dot or bar has the exact colour).
func countNear(img image.Image, c color.Color) int {
	r0, g0, b0, _ := c.RGBA()
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			d := math.Abs(float64(r)-float64(r0)) + math.Abs(float64(g)-float64(g0)) + math.Abs(float64(bl)-float64(b0))
			if d < 3*0x0800 {
				n++
			}
		}
	}
	return n
}

// TestMapColours: each label's colour covers visible area, and a label that
// is absent from the data is absent from the image.
func TestMapColours(t *testing.T) {
	m := sampleMap(300)
	for i, l := range m.Labels {
		if l == 3 {
			m.Labels[i] = 2 // no document keeps label 3
		}
	}
	fig, err := DocumentMap(m)
	if err != nil {
		t.Fatal(err)
	}
	p, s := render(t, fig)
	img, err := png.Decode(bytes.NewReader(p))
	if err != nil {
		t.Fatal(err)
	}
	// Dots are drawn slightly translucent on white: the expected colour is
	// the blend.
	blend := func(c color.Color) color.Color {
		n := color.NRGBAModel.Convert(c).(color.NRGBA)
		a := float64(0xd8) / 255
		mix := func(v uint8) uint8 { return uint8(math.Round(float64(v)*a + 255*(1-a))) }
		return color.NRGBA{R: mix(n.R), G: mix(n.G), B: mix(n.B), A: 255}
	}
	for l := 0; l < 7; l++ {
		got := countNear(img, blend(colorFor(l)))
		t.Logf("label %d: %d pixels", l, got)
		if l == 3 && got > 0 {
			t.Errorf("absent label 3 has %d pixels of its colour", got)
		}
		if l != 3 && got < 100 {
			t.Errorf("label %d has only %d pixels of its colour", l, got)
		}
	}
	if bytes.Contains(s, []byte("Probabilistic_Methods")) {
		t.Errorf("legend lists absent label 3")
	}
}

func TestLogScaleChoice(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []float64
		log    bool
	}{
		{"wide positive", []float64{100, 10, 1}, true},
		{"narrow", []float64{3, 2, 1.5}, false},
		{"crosses zero", []float64{500, 0, -1}, false},
	} {
		fig, err := LearningCurves(Curves{Epoch: []int{1, 2, 3}, Loss: []Series{{"total", tc.values}}})
		if err != nil {
			t.Fatal(err)
		}
		_, s := render(t, fig)
		if got := bytes.Contains(s, []byte("log scale")); got != tc.log {
			t.Errorf("%s: log scale %v, want %v", tc.name, got, tc.log)
		}
	}
}

func TestIntegerTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		major  []float64
	}{
		{1, 40, []float64{5, 10, 15, 20, 25, 30, 35, 40}},
		{1, 3, []float64{1, 2, 3}},
		{0, 14, []float64{0, 2, 4, 6, 8, 10, 12, 14}},
		{0, 500, []float64{0, 100, 200, 300, 400, 500}},
	} {
		var major []float64
		for _, tk := range (integerTicks{}).Ticks(tc.lo, tc.hi) {
			if tk.Value != math.Trunc(tk.Value) {
				t.Errorf("[%g,%g]: tick at %g", tc.lo, tc.hi, tk.Value)
			}
			if tk.Label != "" {
				major = append(major, tk.Value)
			}
		}
		if len(major) != len(tc.major) {
			t.Errorf("[%g,%g]: major ticks %v, want %v", tc.lo, tc.hi, major, tc.major)
			continue
		}
		for i := range major {
			if major[i] != tc.major[i] {
				t.Errorf("[%g,%g]: major ticks %v, want %v", tc.lo, tc.hi, major, tc.major)
				break
			}
		}
	}
}

// TestSparseInputs: a single epoch, validation measured once, a constant
// series and more than ten labels still draw.
func TestSparseInputs(t *testing.T) {
	nan := math.NaN()
	c := Curves{Epoch: []int{7}, Loss: []Series{{"total", []float64{2}}}, Validation: []Series{{"f1", []float64{nan}}}}
	if _, err := LearningCurves(c); err != nil {
		t.Errorf("single epoch: %v", err)
	}
	c = Curves{Epoch: []int{1, 2, 3}, Validation: []Series{{"f1", []float64{nan, 0.5, nan}}, {"auc", []float64{0.7, 0.7, 0.7}}}}
	fig, err := LearningCurves(c)
	if err != nil {
		t.Fatalf("sparse validation: %v", err)
	}
	render(t, fig)
	m := Map{}
	for i := 0; i < 60; i++ {
		m.XY = append(m.XY, float64(i%7), float64(i/7))
		m.Labels = append(m.Labels, i%13)
	}
	fig, err = DocumentMap(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, s := render(t, fig); !bytes.Contains(s, []byte("label 12 (4)")) {
		t.Errorf("map with 13 unnamed labels lacks \"label 12 (4)\" in its legend")
	}
}

func TestErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ab := func(edit func(*Ablation)) func() error {
		return func() error {
			a := sampleAblation()
			edit(&a)
			_, err := AblationBars(a)
			return err
		}
	}
	curves := func(c Curves) func() error {
		return func() error { _, err := LearningCurves(c); return err }
	}
	docmap := func(m Map) func() error {
		return func() error { _, err := DocumentMap(m); return err }
	}
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"curves empty", curves(Curves{}), "no epochs"},
		{"curves no series", curves(Curves{Epoch: []int{1}}), "no measured values"},
		{"curves all NaN", curves(Curves{Epoch: []int{1}, Loss: []Series{{"a", []float64{nan}}}}), "no measured values"},
		{"curves length", curves(Curves{Epoch: []int{1, 2}, Loss: []Series{{"graph", []float64{1}}}}), `"graph" has 1 values for 2 epochs`},
		{"curves inf", curves(Curves{Epoch: []int{1, 2}, Validation: []Series{{"auc", []float64{1, inf}}}}), "infinite at epoch 2"},
		{"ablation no metrics", ab(func(a *Ablation) { a.Metrics = nil }), "no metrics"},
		{"ablation no variants", ab(func(a *Ablation) { a.Variants = nil }), "no variants"},
		{"ablation mean length", ab(func(a *Ablation) { a.Variants[1].Mean = a.Variants[1].Mean[:2] }), `"flat tree" has 2 mean values for 3 metrics`},
		{"ablation std length", ab(func(a *Ablation) { a.Variants[0].Std = []float64{1} }), "std values"},
		{"ablation negative std", ab(func(a *Ablation) { a.Variants[0].Std[2] = -1 }), `std of "link AUC" is -1`},
		{"ablation all NaN", ab(func(a *Ablation) {
			a.Variants = a.Variants[:1]
			a.Variants[0].Mean = []float64{nan, nan, nan}
		}), "no measured values"},
		{"map empty", docmap(Map{}), "no documents"},
		{"map length", docmap(Map{XY: []float64{1, 2, 3}, Labels: []int{0, 1}}), "3 coordinates for 2 documents"},
		{"map NaN", docmap(Map{XY: []float64{1, 2, nan, 3}, Labels: []int{0, 1}}), "document 1"},
		{"format", func() error {
			f, _ := DocumentMap(Map{XY: []float64{0, 0}, Labels: []int{0}})
			return f.Render(&bytes.Buffer{}, "jpeg")
		}, `unknown format "jpeg"`},
		{"save missing dir", func() error {
			f, _ := DocumentMap(Map{XY: []float64{0, 0}, Labels: []int{0}})
			return f.Save(filepath.Join(t.TempDir(), "no", "such", "dir", "map"))
		}, "no such file"},
	} {
		err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want mention of %q", tc.name, err, tc.want)
		}
	}
}

// TestSave: Save writes base.png and base.svg (with or without an extension
// on base), replaces old files, and leaves no temporary file behind.
func TestSave(t *testing.T) {
	dir := t.TempDir()
	fig, err := AblationBars(sampleAblation())
	if err != nil {
		t.Fatal(err)
	}
	for _, base := range []string{"bars", "bars.png", "bars.svg"} {
		if err := fig.Save(filepath.Join(dir, base)); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "bars.png,bars.svg" {
		t.Fatalf("directory holds %v, want bars.png and bars.svg only", names)
	}
	wantPNG, wantSVG := render(t, fig)
	for name, want := range map[string][]byte{"bars.png": wantPNG, "bars.svg": wantSVG} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from Render's output", name)
		}
	}
}

func TestFigureSizes(t *testing.T) {
	one, err := LearningCurves(Curves{Epoch: []int{1, 2}, Loss: []Series{{"total", []float64{2, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	two, err := LearningCurves(sampleCurves())
	if err != nil {
		t.Fatal(err)
	}
	_, h1 := one.Size()
	_, h2 := two.Size()
	if h2-h1 != 3*vg.Inch {
		t.Errorf("second panel adds %v, want 3 inches", h2-h1)
	}
}

func TestValueAxis(t *testing.T) {
	for _, c := range []struct {
		name               string
		dataMin, hi        float64
		wantMin, wantMaxLo float64
	}{
		// F1 and AUC in percent between 80 and 93: the axis starts at a
		// round number below 80, not at 0.
		{"percent scores", 80.4, 93.8, 70, 93.8},
		// Scores spread from 0.2 to 0.9 keep a zero-based axis.
		{"wide spread", 0.2, 0.9, 0, 0.9},
		// Negative values (NPMI can be) keep the data's own lower end.
		{"negative", -0.3, 0.5, -0.3, 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			ymin, ymax := valueAxis(c.dataMin, c.hi)
			if ymin != c.wantMin {
				t.Errorf("axis starts at %g, want %g", ymin, c.wantMin)
			}
			if ymin > c.dataMin || ymax <= c.wantMaxLo {
				t.Errorf("axis [%g, %g] does not hold the data [%g, %g]", ymin, ymax, c.dataMin, c.hi)
			}
		})
	}
}
