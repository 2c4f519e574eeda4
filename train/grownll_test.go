package train

import (
	"math"
	"testing"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/topictree"
)

// TestReconstructionScores checks ReconstructionScores on a root with two
// leaves against per-token NLLs worked out by hand: a document written in
// its leaf's words scores its own NLL at that leaf, the root scores the
// length-weighted mean, a topic no document uses scores 0, and uniform β
// gives log V everywhere.
func TestReconstructionScores(t *testing.T) {
	tr, err := topictree.New(2, 2) // rows: root 0, leaves 1 and 2
	if err != nil {
		t.Fatal(err)
	}
	tab := tr.Tables()
	if tab.T != 3 || tab.Parent[1] != 0 || tab.Parent[2] != 0 {
		t.Fatalf("tree %v: want a root with two leaves", tab.Parent)
	}
	const V = 4
	beta := []float32{
		0.25, 0.25, 0.25, 0.25, // root
		0.5, 0.5, 0, 0, // leaf 1
		0, 0, 0.5, 0.5, // leaf 2
	}
	// Document a: leaf 1's words, half its mass there. Document b: a
	// word of each leaf's half, half its mass on leaf 2.
	theta := []float32{
		0.5, 0.5, 0,
		0.5, 0, 0.5,
	}
	words := [][]int32{{0, 1}, {0, 2}}
	nllA := -math.Log(0.5*0.25 + 0.5*0.5)
	nllB := -(math.Log(0.5*0.25) + math.Log(0.5*0.25+0.5*0.5)) / 2
	got := ReconstructionScores(tab, theta, beta, model.WordMix{}, words)
	want := []float64{(nllA + nllB) / 2, nllA, nllB}
	for r := range want {
		if math.Abs(got[r]-want[r]) > 1e-12 {
			t.Errorf("topic row %d: score %.15g, want %.15g", r, got[r], want[r])
		}
	}
	// With the background mixture (λ = 0.4, b = (0.1, 0.2, 0.3, 0.4)),
	// p(w|d) = λ·b_w + (1−λ)·Σ_t θ_dt β_tw.
	mix := model.WordMix{Lambda: 0.4, Unigram: []float32{0.1, 0.2, 0.3, 0.4}}
	pm := func(b float64, q float64) float64 { return 0.4*b + 0.6*q }
	mA := -(math.Log(pm(0.1, 0.5*0.25+0.5*0.5)) + math.Log(pm(0.2, 0.5*0.25+0.5*0.5))) / 2
	mB := -(math.Log(pm(0.1, 0.5*0.25)) + math.Log(pm(0.3, 0.5*0.25+0.5*0.5))) / 2
	gotMix := ReconstructionScores(tab, theta, beta, mix, words)
	for r, w := range []float64{(mA + mB) / 2, mA, mB} {
		if math.Abs(float64(float32(gotMix[r]))-float64(float32(w))) > 1e-6 {
			t.Errorf("with the mixture, topic row %d: score %.9g, want %.9g", r, gotMix[r], w)
		}
	}
	if !(got[2] > got[1]) {
		t.Errorf("the leaf whose document is explained worse scores %g, not above %g", got[2], got[1])
	}

	// No document on leaf 2; β uniform: every used topic scores log V.
	uniform := make([]float32, 3*V)
	for i := range uniform {
		uniform[i] = 1.0 / V
	}
	got = ReconstructionScores(tab, []float32{0.5, 0.5, 0, 0.2, 0.8, 0}, uniform, model.WordMix{}, [][]int32{{0, 3, 1}, {2}})
	for r, w := range []float64{math.Log(V), math.Log(V), 0} {
		if math.Abs(got[r]-w) > 1e-6 {
			t.Errorf("uniform β, topic row %d: score %g, want %g", r, got[r], w)
		}
	}
}
