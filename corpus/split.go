package corpus

import (
	"math/rand/v2"
	"slices"
)

// splitSizes returns the number of training documents (validation
// included) and of validation documents for n documents: floor(0.8 n)
// training, the last floor(0.1 × training) of them validation. With two or
// more documents, training and test each keep at least one.
func splitSizes(n int) (train, valid int) {
	train = n * 8 / 10
	if n >= 2 {
		train = min(max(train, 1), n-1)
	}
	return train, train / 10
}

// PaperSplit is the paper's split by document order (DESIGN.md, "Evaluation
// protocol"): the first 80% of documents train, the last 10% of those
// validate, the last 20% test.
func PaperSplit(g *Graph) *Split {
	n := g.NumDocs()
	nTrain, nValid := splitSizes(n)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	return newSplit(g, order[:nTrain], order[nTrain-nValid:nTrain], order[nTrain:])
}

// RandomSplit draws the same sizes as PaperSplit at random, for corpora
// whose order means nothing; the same seed gives the same split.
func RandomSplit(g *Graph, seed uint64) *Split {
	n := g.NumDocs()
	nTrain, nValid := splitSizes(n)
	rng := rand.New(rand.NewPCG(seed, 0x5eed5917))
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	train := slices.Clone(perm[:nTrain])
	valid := slices.Clone(perm[nTrain-nValid : nTrain])
	test := slices.Clone(perm[nTrain:])
	slices.Sort(train)
	slices.Sort(valid)
	slices.Sort(test)
	return newSplit(g, train, valid, test)
}

// newSplit derives the link sets and neighbour lists from the document
// sets (each sorted ascending).
func newSplit(g *Graph, train, valid, test []int32) *Split {
	n := g.NumDocs()
	s := &Split{
		Train:  slices.Clone(train),
		Valid:  slices.Clone(valid),
		Test:   slices.Clone(test),
		IsTest: make([]bool, n),
	}
	for _, i := range test {
		s.IsTest[i] = true
	}
	for _, l := range g.Links {
		a, b := s.IsTest[l[0]], s.IsTest[l[1]]
		switch {
		case !a && !b:
			s.TrainLinks = append(s.TrainLinks, l)
		case a && b:
			s.TestLinks = append(s.TestLinks, l)
		}
	}
	// Neighbours: a training document keeps its training neighbours, a test
	// document its training neighbours too; links among test documents are
	// never used. Both are "the neighbours that are training documents".
	s.NbrPtr = make([]int64, n+1)
	for i := 0; i < n; i++ {
		for _, j := range g.Neighbors(i) {
			if !s.IsTest[j] {
				s.NbrPtr[i+1]++
			}
		}
	}
	for i := 0; i < n; i++ {
		s.NbrPtr[i+1] += s.NbrPtr[i]
	}
	s.NbrIdx = make([]int32, 0, s.NbrPtr[n])
	for i := 0; i < n; i++ {
		for _, j := range g.Neighbors(i) {
			if !s.IsTest[j] {
				s.NbrIdx = append(s.NbrIdx, j)
			}
		}
	}
	return s
}
