package serve

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gtformer/gtformer/explore"
)

// mapsChecks drives the facet chart and the link map on the page b shows
// (the fixture's corpus has a year field and labels): the root's panel
// draws a bar per bin and series of the year, the field picker redraws it
// for the labels, and the link map tab draws a K×K matrix for each level
// with the strongest cross-branch pairs listed.
func mapsChecks(t *testing.T, b *browser, ix *explore.Index, prefix string) {
	root := ix.Tree().Nodes[0]
	year, err := ix.Facets(root.ID, "year", explore.DefaultFacetOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, s := range year.Stack {
		for _, x := range s.Words {
			if x > 0 {
				want++
			}
		}
	}
	var bars int
	b.run(t, "facets",
		chromedp.Click(fmt.Sprintf(`#outline .topic-label[data-topic="%d"]`, root.ID), chromedp.ByQuery),
		chromedp.WaitVisible(`#facet-chart[data-field="year"] svg .facet-bar`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('#facet-chart .facet-bar').length`, &bars))
	if bars != want {
		t.Errorf("year facet chart: %d bars, want %d (bins × series with a share)", bars, want)
	}
	b.elementShot(t, prefix+"-facets", `#facets`)
	var labels int
	b.run(t, "facet field",
		chromedp.SetValue(`#facet-field`, "label", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('facet-field').dispatchEvent(new Event('change')), 0`, nil),
		chromedp.WaitVisible(`#facet-chart[data-field="label"] svg .facet-bar`, chromedp.ByQuery),
		chromedp.Evaluate(`new Set([...document.querySelectorAll('#facet-chart .facet-bar')].map(e => e.dataset.bin)).size`, &labels))
	if labels != len(ix.Info().Labels) {
		t.Errorf("label facet chart: %d bins, want %d labels", labels, len(ix.Info().Labels))
	}

	for level := 1; level < ix.Info().Levels; level++ {
		lm, err := ix.LinkMap(level, 10)
		if err != nil {
			t.Fatal(err)
		}
		var cells, pairs int
		b.run(t, fmt.Sprintf("link map level %d", level),
			chromedp.Click(`#tabs .tab[data-view="links"]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#link-levels`, chromedp.ByQuery),
			chromedp.Click(fmt.Sprintf(`#link-levels button:nth-of-type(%d)`, level), chromedp.ByQuery),
			chromedp.WaitVisible(fmt.Sprintf(`#view[data-level="%d"] svg .link-cell`, level), chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll('#view .link-cell').length`, &cells),
			chromedp.Evaluate(`document.querySelectorAll('#link-pairs li').length`, &pairs))
		if k := len(lm.Topics); cells != k*k || pairs != len(lm.Pairs) {
			t.Errorf("link map level %d: %d cells and %d pairs, want %d and %d", level, cells, pairs, k*k, len(lm.Pairs))
		}
		if level == ix.Info().Levels-1 {
			b.elementShot(t, prefix+"-linkmap", `#view`)
		}
	}
}

// elementShot writes one element of the page as name.png into the test's
// artifact directory (kept with go test -artifacts).
func (b *browser) elementShot(t *testing.T, name, sel string) {
	t.Helper()
	var png []byte
	b.run(t, "screenshot "+name, chromedp.Screenshot(sel, &png, chromedp.ByQuery))
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
