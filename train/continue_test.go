package train

import (
	"slices"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/corpus"
)

func TestContinueSteps(t *testing.T) {
	opt := DefaultOptions() // 6 epochs of 32 links
	for _, c := range []struct {
		links, min, want int
	}{
		{0, 60, 60},
		{100, 10, 19},    // ⌈6·100/32⌉
		{1000, 60, 188},  // ⌈6000/32⌉
		{3200, 500, 600}, // 6 passes of 100 steps
	} {
		if got := ContinueSteps(opt, c.links, c.min); got != c.want {
			t.Errorf("ContinueSteps(%d links, min %d) = %d, want %d", c.links, c.min, got, c.want)
		}
	}
}

// TestContinueKeepsTopics trains a tiny model, then continues it on the
// corpus with new documents: no topic start (the log says none), every
// topic that survives keeps its id, growth reads the new documents, the
// new documents are trained on, and a new model's corpus fingerprint is
// the union's.
func TestContinueKeepsTopics(t *testing.T) {
	g, s := tinyData(t)
	opt := tinyOptions(2, "cache", 1)
	opt.Select = SelectLast
	tr := newTrainer(t, g, s, tinyConfig(g), opt)
	runLogged(t, tr)
	before := tr.Model.Topics.Tables().ID

	// New documents: copies of the first 10 training documents' words,
	// linked to them and to each other.
	nd := &corpus.NewDocs{}
	n := int32(g.NumDocs())
	for i := range int32(10) {
		nd.IDs = append(nd.IDs, "new"+string(rune('a'+i)))
		nd.Tokens = append(nd.Tokens, slices.Clone(g.Doc(int(s.Train[i]))))
		nd.Links = append(nd.Links, [2]int32{n + i, s.Train[i]})
		if i > 0 {
			nd.Links = append(nd.Links, [2]int32{n + i, n + i - 1})
		}
	}
	u := g.Extend(nd)
	roles := s.Roles(g.NumDocs())
	for range nd.IDs {
		roles = append(roles, corpus.RoleTrain)
	}
	s2, err := corpus.SplitFromRoles(u, roles)
	if err != nil {
		t.Fatal(err)
	}
	copt := opt
	copt.Epochs, copt.StepsPerEpoch = 2, 3
	c, err := Continue(tr.Model, u, s2, copt, Env{})
	if err != nil {
		t.Fatal(err)
	}
	var added []int32
	for d := n; d < int32(u.NumDocs()); d++ {
		added = append(added, d)
	}
	c.SetGrowFrom(added)
	if len(c.GrowFrom) != len(added) {
		t.Errorf("grow from %d of %d new documents", len(c.GrowFrom), len(added))
	}
	log := runLogged(t, c)
	if strings.Contains(log, "topics placed") || strings.Contains(log, "topic start redone") {
		t.Errorf("the continued run redid the topic start:\n%s", log)
	}
	if c.State.Step != 6 {
		t.Errorf("%d steps, want 6", c.State.Step)
	}
	after := c.Model.Topics.Tables().ID
	kept := 0
	for _, id := range before {
		if slices.Contains(after, id) {
			kept++
		}
	}
	if kept == 0 {
		t.Errorf("no topic kept its id: %v → %v", before, after)
	}
	if c.Model.Corpus == nil || c.Model.Corpus.Documents.Count != u.NumDocs() {
		t.Errorf("fingerprint %+v, want %d documents", c.Model.Corpus, u.NumDocs())
	}
	fit := s2.Holdout(u).Train
	for _, d := range added {
		if !slices.Contains(fit, d) {
			t.Errorf("new document %d is not trained on", d)
		}
	}
}
