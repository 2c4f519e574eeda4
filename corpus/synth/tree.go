package synth

// The planted topic tree and the words of its topics.

import (
	"sort"
	"strconv"
)

// tree holds the planted topics while generating.
type tree struct {
	truth     *Truth
	themes    []*theme // per topic; nil when unthemed
	firstLeaf int32    // leaves are topics firstLeaf..T-1
}

func newTree(cfg Config) *tree {
	T := cfg.NumTopics()
	tr := &tree{truth: &Truth{Depth: cfg.Depth, Branching: cfg.Branching, Vocab: cfg.Vocab,
		Parent: make([]int32, T), Level: make([]int32, T), Names: make([]string, T), Words: make([][]int32, T)},
		themes: make([]*theme, T)}
	t := tr.truth
	t.Parent[0], t.Names[0], tr.themes[0] = -1, general.name, &general
	pos := []string{""} // dotted child-index path, for unthemed names
	next := 1
	for k := 0; next < T; k++ {
		for c := 0; c < cfg.Branching; c++ {
			id := next
			next++
			t.Parent[id], t.Level[id] = int32(k), t.Level[k]+1
			var subs []theme
			switch {
			case k == 0:
				subs = fields
			case tr.themes[k] != nil:
				subs = tr.themes[k].subs
			}
			p := strconv.Itoa(c + 1)
			if pos[k] != "" {
				p = pos[k] + "." + p
			}
			pos = append(pos, p)
			name := "topic-" + p
			if c < len(subs) {
				tr.themes[id] = &subs[c]
				name = subs[c].name
			}
			if k != 0 {
				name = t.Names[k] + "/" + name
			}
			t.Names[id] = name
		}
	}
	tr.firstLeaf = int32(T - pow(cfg.Branching, cfg.Depth-1))
	return tr
}

func pow(b, e int) int {
	p := 1
	for range e {
		p *= b
	}
	return p
}

// assignWords gives each topic its block of words (see the package
// documentation), sorts the vocabulary, and records each topic's word ids.
func (tr *tree) assignWords(V int) []string {
	t := tr.truth
	T := len(t.Parent)
	used := make(map[string]bool, V)
	owned := make([][]string, T)
	for k := 0; k < T; k++ {
		quota := V / T
		if k < V%T {
			quota++
		}
		owned[k] = tr.wordsFor(k, quota, used)
	}
	vocab := make([]string, 0, V)
	for _, ws := range owned {
		vocab = append(vocab, ws...)
	}
	sort.Strings(vocab)
	id := make(map[string]int32, V)
	for i, w := range vocab {
		id[w] = int32(i)
	}
	for k, ws := range owned {
		t.Words[k] = make([]int32, len(ws))
		for r, w := range ws {
			t.Words[k][r] = id[w]
		}
	}
	return vocab
}

// wordsFor returns n unused words for topic k: its list, then compounds.
func (tr *tree) wordsFor(k, n int, used map[string]bool) []string {
	out := make([]string, 0, n)
	take := func(w string) bool {
		if !used[w] {
			used[w] = true
			out = append(out, w)
		}
		return len(out) == n
	}
	if th := tr.themes[k]; th != nil {
		for _, w := range th.words {
			if take(w) {
				return out
			}
		}
	}
	// Compound base: the word lists on the path, own list first.
	var base []string
	for a := int32(k); a >= 0; a = tr.truth.Parent[a] {
		if th := tr.themes[a]; th != nil {
			base = append(base, th.words...)
		}
	}
	m := len(base)
	for d := 1; d < m; d++ {
		for i := 0; i < m; i++ {
			if take(base[i] + "-" + base[(i+d)%m]) {
				return out
			}
		}
	}
	for num := 2; ; num++ {
		for d := 1; d < m; d++ {
			for i := 0; i < m; i++ {
				if take(base[i] + "-" + base[(i+d)%m] + "-" + strconv.Itoa(num)) {
					return out
				}
			}
		}
	}
}
