package corpus

import (
	"slices"
)

// Stats summarises a corpus and its split; the JSON names are the ones
// "gtformer data stats --json" prints.
type Stats struct {
	Name         string `json:"name"`
	Docs         int    `json:"docs"`
	Links        int    `json:"links"`
	LinksInduced bool   `json:"links_induced"`
	Vocab        int    `json:"vocab"`
	Tokens       int64  `json:"tokens"`
	Labels       int    `json:"labels"`
	IsolatedDocs int    `json:"isolated_docs"`
	EmptyDocs    int    `json:"empty_docs"`
	WordDim      int    `json:"word_dim"`

	Degree Distribution `json:"degree"` // links per document
	Length Distribution `json:"length"` // tokens per document

	Split     string `json:"split"`
	TrainDocs int    `json:"train_docs"` // validation included
	ValidDocs int    `json:"valid_docs"`
	TestDocs  int    `json:"test_docs"`
	// TrainLinks and TestLinks are links among training and among test
	// documents; CrossLinks join a test document to a training one.
	TrainLinks int `json:"train_links"`
	TestLinks  int `json:"test_links"`
	CrossLinks int `json:"cross_links"`
	// TestIsolated counts test documents with no training neighbour (they
	// are embedded from their text alone).
	TestIsolated int `json:"test_isolated"`
}

// Distribution summarises a list of counts.
type Distribution struct {
	Min    int     `json:"min"`
	P10    float64 `json:"p10"`
	P25    float64 `json:"p25"`
	Median float64 `json:"median"`
	P75    float64 `json:"p75"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	Max    int     `json:"max"`
	Mean   float64 `json:"mean"`
}

// Summarize computes the distribution of xs; percentiles interpolate
// linearly between order statistics (numpy's default).
func Summarize(xs []int) Distribution {
	if len(xs) == 0 {
		return Distribution{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += float64(x)
	}
	q := func(p float64) float64 {
		pos := p * float64(len(s)-1)
		lo := int(pos)
		if lo+1 >= len(s) {
			return float64(s[len(s)-1])
		}
		f := pos - float64(lo)
		return float64(s[lo])*(1-f) + float64(s[lo+1])*f
	}
	return Distribution{
		Min: s[0], Max: s[len(s)-1], Mean: sum / float64(len(s)),
		P10: q(0.10), P25: q(0.25), Median: q(0.5), P75: q(0.75), P90: q(0.90), P99: q(0.99),
	}
}

// ComputeStats summarises g and, when s is not nil, its split, named by
// splitName (e.g. "paper").
func ComputeStats(g *Graph, s *Split, splitName string) Stats {
	n := g.NumDocs()
	st := Stats{
		Name: g.Name, Docs: n, Links: len(g.Links), LinksInduced: g.LinksInduced,
		Vocab: len(g.Vocab), Tokens: g.NumTokens(), Labels: g.NumLabels(), WordDim: g.WordDim,
	}
	deg := make([]int, n)
	length := make([]int, n)
	for i := 0; i < n; i++ {
		deg[i] = len(g.Neighbors(i))
		length[i] = len(g.Doc(i))
		if deg[i] == 0 {
			st.IsolatedDocs++
		}
		if length[i] == 0 {
			st.EmptyDocs++
		}
	}
	st.Degree = Summarize(deg)
	st.Length = Summarize(length)
	if s != nil {
		st.Split = splitName
		st.TrainDocs, st.ValidDocs, st.TestDocs = len(s.Train), len(s.Valid), len(s.Test)
		st.TrainLinks, st.TestLinks = len(s.TrainLinks), len(s.TestLinks)
		st.CrossLinks = st.Links - st.TrainLinks - st.TestLinks
		for _, i := range s.Test {
			if len(s.TrainNeighbors(int(i))) == 0 {
				st.TestIsolated++
			}
		}
	}
	return st
}
