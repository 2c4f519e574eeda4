package train

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/metrics"
)

// TestFinalMergeOnce plants top words and shares on the initial tree (root;
// three middle topics of three leaves each) and checks one step of
// Options.FinalMergeOverlap: which topic goes, that nothing goes below the
// threshold or between a topic and its ancestor, and that the per-topic
// inputs of the topics kept follow them.
func TestFinalMergeOnce(t *testing.T) {
	type planted struct {
		top    [][]int32
		shares []float64
		kids   map[int][]int // row -> child rows
	}
	for _, tc := range []struct {
		name    string
		overlap float64
		plant   func(p planted)
		gone    func(p planted) []int // rows removed (none: nil)
	}{
		{"no shared words", 0.3, func(planted) {}, nil},
		{"leaves of two branches share 8 words, the second smaller", 0.5, func(p planted) {
			a, b := p.kids[1][0], p.kids[2][1]
			copy(p.top[b], p.top[a][:8])
			p.shares[b] = 0.001
		}, func(p planted) []int { return []int{p.kids[2][1]} }},
		{"leaves of two branches share 8 words, the first smaller", 0.5, func(p planted) {
			a, b := p.kids[1][0], p.kids[2][1]
			copy(p.top[b], p.top[a][:8])
			p.shares[a] = 0.001
		}, func(p planted) []int { return []int{p.kids[1][0]} }},
		{"a middle topic with its leaves goes when its subtree is smaller", 0.5, func(p planted) {
			copy(p.top[3], p.top[p.kids[1][2]][:5])
			p.shares[3] = 0.001
			for _, c := range p.kids[3] {
				p.shares[c] = 0.001
			}
		}, func(p planted) []int { return append([]int{3}, p.kids[3]...) }},
		{"8 shared words under a threshold of 0.9", 0.9, func(p planted) {
			copy(p.top[p.kids[2][1]], p.top[p.kids[1][0]][:8])
		}, nil},
		{"a leaf repeats its parent and the root", 0.5, func(p planted) {
			p.top[1] = slices.Clone(p.top[0])
			p.top[p.kids[1][1]] = slices.Clone(p.top[0])
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, s := tinyData(t)
			opt := tinyOptions(1, "cache", 1)
			opt.FinalMergeOverlap = tc.overlap
			tr := newTrainer(t, g, s, tinyConfig(g), opt)
			var log strings.Builder
			tr.log = &log
			tab := tr.Model.Topics.Tables()
			p := planted{top: make([][]int32, tab.T), shares: make([]float64, tab.T), kids: map[int][]int{}}
			for r := range tab.T {
				p.top[r] = make([]int32, 10)
				for i := range p.top[r] {
					p.top[r][i] = int32(10*r + i)
				}
				p.shares[r] = 1 / float64(tab.T)
				if r > 0 {
					p.kids[int(tab.Parent[r])] = append(p.kids[int(tab.Parent[r])], r)
				}
			}
			if tab.T != 13 || len(p.kids[0]) != 3 || !slices.Equal(p.kids[0], []int{1, 2, 3}) {
				t.Fatalf("initial tree %v: want the root, 3 middle topics of 3 children each", p.kids)
			}
			tc.plant(p)
			var gone []int
			if tc.gone != nil {
				gone = tc.gone(p)
			}
			ids := slices.Clone(tab.ID)
			in := tr.Model.Topics.Input
			cols := in.Shape[1]
			rowOf := map[int][]float32{}
			for r, id := range ids {
				rowOf[id] = slices.Clone(in.Data[r*cols : (r+1)*cols])
			}
			merged, err := tr.mergeOnce(p.shares, p.top)
			if err != nil {
				t.Fatal(err)
			}
			if merged != (len(gone) > 0) {
				t.Fatalf("merged %v, want %v; log:\n%s", merged, len(gone) > 0, log.String())
			}
			var want []int
			for r, id := range ids {
				if !slices.Contains(gone, r) {
					want = append(want, id)
				}
			}
			now := tr.Model.Topics.Tables()
			if !slices.Equal(now.ID, want) {
				t.Errorf("topics %v, want %v", now.ID, want)
			}
			if got := strings.Count(log.String(), "final merge: remove topic"); got != min(len(gone), 1) {
				t.Errorf("%d log lines of a removal, want %d:\n%s", got, min(len(gone), 1), log.String())
			}
			in = tr.Model.Topics.Input
			if in.Shape[0] != now.T {
				t.Fatalf("topic inputs of %d rows for %d topics", in.Shape[0], now.T)
			}
			for r, id := range now.ID {
				if d := sliceDiff(fmt.Sprintf("input of topic %d", id), in.Data[r*cols:(r+1)*cols], rowOf[id]); d != "" {
					t.Error(d)
				}
			}
		})
	}
}

// TestFinalMergeRun trains the tiny corpus with and without
// Options.FinalMergeOverlap: 0 (the default) gives the default's run bit
// for bit; a threshold low enough to merge removes topics after the last
// step, leaves no pair of topics (neither an ancestor of the other) at or
// above it, and changes no weight but the per-topic inputs' rows (without
// the decoder refit, which reads the merged tree's θ) and no document's
// embedding.
func TestFinalMergeRun(t *testing.T) {
	g, s := tinyData(t)
	run := func(set bool, overlap float64) (*Trainer, string) {
		opt := tinyOptions(2, "cache", 3)
		opt.Select, opt.DecoderRefit = "last", 0
		if set {
			opt.FinalMergeOverlap = overlap
		}
		tr := newTrainer(t, g, s, tinyConfig(g), opt)
		return tr, runLogged(t, tr)
	}
	def, defLog := run(false, 0)
	if def.Opt.FinalMergeOverlap != 0 {
		t.Fatalf("default FinalMergeOverlap %g, want 0", def.Opt.FinalMergeOverlap)
	}
	zero, _ := run(true, 0)
	if d := diffBits(paramBits(def.Model), paramBits(zero.Model)); d != "" {
		t.Errorf("overlap 0: weights differ from the default's: %s", d)
	}
	if a, b := treeJSON(t, def.Model), treeJSON(t, zero.Model); a != b {
		t.Errorf("overlap 0: tree differs from the default's:\n%s\n%s", a, b)
	}
	if a, b := curve(t, def.History), curve(t, zero.History); a != b {
		t.Errorf("overlap 0: learning curve differs from the default's:\n%s\n%s", a, b)
	}
	if strings.Contains(defLog, "final merge") {
		t.Errorf("the default merged:\n%s", defLog)
	}

	const x = 0.3
	merged, log := run(true, x)
	n := strings.Count(log, "final merge: remove topic")
	before, after := def.Model.Topics.Tables(), merged.Model.Topics.Tables()
	if n == 0 || after.T >= before.T {
		t.Fatalf("overlap %g: %d merges, %d topics → %d; want some removed:\n%s", x, n, before.T, after.T, log)
	}
	if after.ID[0] != before.ID[0] {
		t.Errorf("root %d replaced by %d", before.ID[0], after.ID[0])
	}
	for _, id := range after.ID {
		if !slices.Contains(before.ID, id) {
			t.Errorf("topic %d added by the merge", id)
		}
	}
	top := metrics.TopWords(merged.Model.Beta(), after.T, metrics.DefaultNPMIWords)
	if p, ok := after.MostRedundant(top, make([]float64, after.T)); ok && p.Overlap >= x {
		t.Errorf("topics %d and %d still share %g of their top words", after.ID[p.Drop], after.ID[p.Keep], p.Overlap)
	}
	a, b := paramBits(def.Model), paramBits(merged.Model)
	in := def.Model.Topics.Input.Name
	delete(a, in)
	delete(b, in)
	if d := diffBits(a, b); d != "" {
		t.Errorf("the merge changed a weight: %s", d)
	}
	docs := def.vs.Valid
	if d := sliceDiff("validation documents' points", def.embedCurrent(docs).Points, merged.embedCurrent(docs).Points); d != "" {
		t.Errorf("the merge moved the documents: %s", d)
	}
	cols := def.Model.Topics.Input.Shape[1]
	for r, id := range after.ID {
		or := slices.Index(before.ID, id)
		if d := sliceDiff(fmt.Sprintf("input of topic %d", id), merged.Model.Topics.Input.Data[r*cols:(r+1)*cols], def.Model.Topics.Input.Data[or*cols:(or+1)*cols]); d != "" {
			t.Error(d)
		}
	}
}
