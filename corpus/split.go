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

// PaperSplit is the paper's split by document order (docs/design.md,
// "Evaluation protocol"): the first 80% of documents train, the last 10% of those
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

// Holdout returns the split that training runs on, in which the validation
// documents are held out the way test documents are (docs/design.md,
// "Evaluation protocol"): its training documents are s's training
// documents minus the validation ones; its test documents are s's
// validation documents; s's test documents belong to neither side and
// none of their links is used. So its TrainLinks are the links among the
// remaining training documents (the only links trained on), its TestLinks
// the links among validation documents (held out: validation link AUC
// ranks them), and every document's neighbours are its links to the
// remaining training documents (a validation document is embedded through
// those alone). A split without validation documents holds nothing out.
func (s *Split) Holdout(g *Graph) *Split {
	isValid := make([]bool, g.NumDocs())
	for _, d := range s.Valid {
		isValid[d] = true
	}
	fit := make([]int32, 0, len(s.Train)-len(s.Valid))
	for _, d := range s.Train {
		if !isValid[d] {
			fit = append(fit, d)
		}
	}
	return newSplit(g, fit, nil, s.Valid)
}

// newSplit derives the link sets and neighbour lists from the document
// sets (each sorted ascending). Documents in neither train nor test (the
// test documents of a Holdout) take part in nothing.
func newSplit(g *Graph, train, valid, test []int32) *Split {
	n := g.NumDocs()
	s := &Split{
		Train:  slices.Clone(train),
		Valid:  slices.Clone(valid),
		Test:   slices.Clone(test),
		IsTest: make([]bool, n),
	}
	isTrain := make([]bool, n)
	for _, i := range train {
		isTrain[i] = true
	}
	for _, i := range test {
		s.IsTest[i] = true
	}
	for _, l := range g.Links {
		switch {
		case isTrain[l[0]] && isTrain[l[1]]:
			s.TrainLinks = append(s.TrainLinks, l)
		case s.IsTest[l[0]] && s.IsTest[l[1]]:
			s.TestLinks = append(s.TestLinks, l)
		}
	}
	// Neighbours: every document keeps its links to training documents: a
	// training document its training neighbours, a test document the
	// training documents it links to; links among test documents are never
	// used.
	s.NbrPtr = make([]int64, n+1)
	for i := 0; i < n; i++ {
		for _, j := range g.Neighbors(i) {
			if isTrain[j] {
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
			if isTrain[j] {
				s.NbrIdx = append(s.NbrIdx, j)
			}
		}
	}
	return s
}
