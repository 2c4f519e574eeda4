package corpus

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

func TestSplitSizes(t *testing.T) {
	for _, tc := range []struct{ n, train, valid int }{
		{3087, 2469, 246}, {2597, 2077, 207}, {1500, 1200, 120}, {1703, 1362, 136},
		{10, 8, 0}, {2, 1, 0}, {1, 0, 0}, {500000, 400000, 40000},
	} {
		train, valid := splitSizes(tc.n)
		if train != tc.train || valid != tc.valid {
			t.Errorf("splitSizes(%d) = %d, %d; want %d, %d", tc.n, train, valid, tc.train, tc.valid)
		}
	}
}

// checkSplit verifies the invariants of any split of g.
func checkSplit(t *testing.T, g *Graph, s *Split) {
	t.Helper()
	n := g.NumDocs()
	all := slices.Concat(s.Train, s.Test)
	slices.Sort(all)
	for i, d := range all {
		if int(d) != i {
			t.Fatalf("train and test do not partition the %d documents", n)
		}
	}
	isTrain := make([]bool, n)
	for _, d := range s.Train {
		isTrain[d] = true
		if s.IsTest[d] {
			t.Fatalf("document %d is train and test", d)
		}
	}
	for _, d := range s.Valid {
		if !isTrain[d] {
			t.Fatalf("validation document %d is not a training document", d)
		}
	}
	for _, l := range s.TrainLinks {
		if !isTrain[l[0]] || !isTrain[l[1]] {
			t.Fatalf("train link %v touches a test document", l)
		}
	}
	for _, l := range s.TestLinks {
		if !s.IsTest[l[0]] || !s.IsTest[l[1]] {
			t.Fatalf("test link %v touches a training document", l)
		}
	}
	cross := 0
	for _, l := range g.Links {
		if s.IsTest[l[0]] != s.IsTest[l[1]] {
			cross++
		}
	}
	if len(s.TrainLinks)+len(s.TestLinks)+cross != len(g.Links) {
		t.Fatalf("%d train + %d test + %d cross links != %d", len(s.TrainLinks), len(s.TestLinks), cross, len(g.Links))
	}
	// Each document's split neighbours are exactly its training neighbours.
	for i := range n {
		var want []int32
		for _, j := range g.Neighbors(i) {
			if isTrain[j] {
				want = append(want, j)
			}
		}
		if got := s.TrainNeighbors(i); !slices.Equal(got, want) {
			t.Fatalf("document %d: split neighbours %v, want %v", i, got, want)
		}
	}
}

func TestPaperSplitTiny(t *testing.T) {
	g, err := LoadFolder(filepath.Join("testdata", "tiny"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := PaperSplit(g)
	checkSplit(t, g, s)
	if !slices.Equal(s.Test, []int32{8, 9}) || len(s.Train) != 8 || len(s.Valid) != 0 {
		t.Fatalf("train %v valid %v test %v", s.Train, s.Valid, s.Test)
	}
	if want := [][2]int32{{0, 1}, {0, 6}, {1, 2}, {3, 4}, {6, 7}}; !slices.Equal(s.TrainLinks, want) {
		t.Errorf("train links %v, want %v", s.TrainLinks, want)
	}
	if want := [][2]int32{{8, 9}}; !slices.Equal(s.TestLinks, want) {
		t.Errorf("test links %v, want %v", s.TestLinks, want)
	}
	// Test document 8 links to 2, 7 (training) and 9 (test): it may use 2, 7.
	if !slices.Equal(s.TrainNeighbors(8), []int32{2, 7}) || len(s.TrainNeighbors(9)) != 0 {
		t.Errorf("neighbours of 8: %v, of 9: %v", s.TrainNeighbors(8), s.TrainNeighbors(9))
	}
	// Training document 7 links to 6 (training) and 8 (test): only 6.
	if !slices.Equal(s.TrainNeighbors(7), []int32{6}) {
		t.Errorf("neighbours of 7: %v", s.TrainNeighbors(7))
	}
}

func TestPaperSplitValidationIsLastTenth(t *testing.T) {
	g := randomGraph(1000, 50, 5, 9)
	s := PaperSplit(g)
	checkSplit(t, g, s)
	if s.Valid[0] != 720 || s.Valid[len(s.Valid)-1] != 799 || len(s.Valid) != 80 {
		t.Fatalf("validation %d..%d (%d), want 720..799 (80)", s.Valid[0], s.Valid[len(s.Valid)-1], len(s.Valid))
	}
}

func TestRandomSplit(t *testing.T) {
	g := randomGraph(500, 60, 6, 4)
	g.SetLinks(KNNGraph(g, KNNOptions{}))
	a, b, c := RandomSplit(g, 7), RandomSplit(g, 7), RandomSplit(g, 8)
	checkSplit(t, g, a)
	checkSplit(t, g, c)
	if !slices.Equal(a.Test, b.Test) || !slices.Equal(a.Valid, b.Valid) {
		t.Fatal("same seed, different splits")
	}
	if slices.Equal(a.Test, c.Test) {
		t.Fatal("different seeds, same split")
	}
	if len(a.Train) != 400 || len(a.Valid) != 40 || len(a.Test) != 100 {
		t.Fatalf("sizes %d/%d/%d, want 400/40/100", len(a.Train), len(a.Valid), len(a.Test))
	}
	// Not the paper split: some test document comes from the first 80%.
	if a.Test[0] >= 400 {
		t.Fatal("random split put every test document last")
	}
}

// TestHoldout checks that the validation view holds the validation
// documents out the way test documents are: no link touching a validation
// or test document is a training link, the held-out links are exactly the
// links among validation documents, and every document's neighbours are
// its links to the remaining training documents.
func TestHoldout(t *testing.T) {
	// A dense random graph over 200 documents so every kind of link occurs.
	g := randomGraph(200, 50, 5, 3)
	rng := rand.New(rand.NewPCG(3, 4))
	var links [][2]int32
	for range 1500 {
		links = append(links, [2]int32{int32(rng.IntN(200)), int32(rng.IntN(200))})
	}
	g.SetLinks(links)
	for _, s := range []*Split{PaperSplit(g), RandomSplit(g, 4)} {
		h := s.Holdout(g)
		isValid := make([]bool, g.NumDocs())
		for _, d := range s.Valid {
			isValid[d] = true
		}
		isFit := make([]bool, g.NumDocs())
		for _, d := range h.Train {
			isFit[d] = true
			if isValid[d] || s.IsTest[d] {
				t.Fatalf("holdout training document %d is a validation or test document", d)
			}
		}
		if len(h.Train)+len(s.Valid) != len(s.Train) || !slices.Equal(h.Test, s.Valid) || len(h.Valid) != 0 {
			t.Fatalf("holdout: %d training + %d validation documents, outer %d training; test = validation: %v",
				len(h.Train), len(s.Valid), len(s.Train), slices.Equal(h.Test, s.Valid))
		}
		var wantTrain, wantHeld int
		for _, l := range g.Links {
			switch {
			case isFit[l[0]] && isFit[l[1]]:
				wantTrain++
			case isValid[l[0]] && isValid[l[1]]:
				wantHeld++
			}
		}
		if wantHeld == 0 || wantTrain == 0 {
			t.Fatalf("test graph too sparse: %d training, %d held-out links", wantTrain, wantHeld)
		}
		for _, l := range h.TrainLinks {
			if !isFit[l[0]] || !isFit[l[1]] {
				t.Fatalf("training link %v touches a validation or test document", l)
			}
		}
		for _, l := range h.TestLinks {
			if !isValid[l[0]] || !isValid[l[1]] {
				t.Fatalf("held-out link %v is not among validation documents", l)
			}
		}
		if len(h.TrainLinks) != wantTrain || len(h.TestLinks) != wantHeld {
			t.Fatalf("%d training and %d held-out links, want %d and %d", len(h.TrainLinks), len(h.TestLinks), wantTrain, wantHeld)
		}
		for i := range g.NumDocs() {
			for _, j := range h.TrainNeighbors(i) {
				if !isFit[j] {
					t.Fatalf("document %d has neighbour %d outside the remaining training documents", i, j)
				}
			}
		}
	}
}
