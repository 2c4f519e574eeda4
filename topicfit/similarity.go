package topicfit

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/hnn"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// SimilarityFit is what FitSimilarity found: the path σ's r and t, the
// level σ's (equal to the path's unless the fit was asked to separate
// them), and the per-token NLL of the words before and after.
type SimilarityFit struct {
	R, T, LevelR, LevelT float64
	Before, After        float64
}

// FitSimilarity sets σ's radius r and temperature t to the values that
// minimise the per-token NLL of docs' words under θ(d_i) β, with the
// documents' tangent vectors (len(docs), n), the topic points and the
// decoder held fixed. With levels, the level σ (documents against the
// level points, which divides a document's words among the levels) then
// gets its own r and t, fitted in turn with the path σ's.
//
// Why: r and t are not trained by gradient. They are set from the
// documents' distances (Calibrate, a contrast chosen for the embeddings)
// and tracked as the documents spread (Track), which says nothing about
// how sharply θ should commit a document to a path for its words. At the
// end of training the documents, topics and decoder are what they will be,
// and the numbers that remain can be fitted to the words directly: a
// search over a few scalars on the training documents, which changes θ
// (perplexity, the level shares) and, through the tree embedding that θ
// weights in the encoder, the embeddings only slightly (docs/design.md,
// "End of training").
//
// Each search is a grid over r' = r + a·t and t' = t·e^b around the
// current values (r' ≥ 0, as the configuration requires), refined twice
// around the best point; it keeps the current values unless a candidate
// is strictly better, so it never makes the fit worse.
func FitSimilarity(m *model.Model, tangent []float32, in *model.Inputs, docs []int32, levels bool) (SimilarityFit, error) {
	n := m.Cfg.Width
	var f SimilarityFit
	f.R, f.T = m.Topics.Similarity()
	f.LevelR, f.LevelT = m.Topics.LevelSimilarity()
	if len(tangent) != len(docs)*n {
		return f, fmt.Errorf("topicfit: similarity fit: %d tangent values for %d documents of width %d", len(tangent), len(docs), n)
	}
	if len(docs) == 0 || m.Cfg.LambdaTopic == 0 {
		f.Before, f.After = math.NaN(), math.NaN()
		return f, nil
	}
	tp := tensor.NewTape()
	tp.NoGrad = true
	d := tp.Alloc(false, len(docs), n)
	copy(d.Data, tangent)
	z, zh := m.Topics.Embeddings(tp)
	pts := m.M.ExpO(tp, d)
	sqT := m.M.PairSqDist(tp, pts, z)  // (N,T)
	sqH := m.M.PairSqDist(tp, pts, zh) // (N,H)
	beta := m.Topics.Beta(tp, z)       // (T,V)
	tokens := newTokenColumns(in, docs, beta, m.Topics.WordMix())
	tab := m.Topics.Tables()

	valid := func(r, t float64) bool {
		return t > 0 && !math.IsInf(t, 0) && r >= 0 && !math.IsInf(r, 0)
	}
	nll := func(r, t, rh, th float64) float64 {
		if !valid(r, t) || !valid(rh, th) {
			return math.Inf(1)
		}
		q := tensor.NewTape()
		q.NoGrad = true
		theta := topictree.Theta(q, tab, hnn.FermiDiracRT(q, sqT, r, t), hnn.FermiDiracRT(q, sqH, rh, th))
		return tokens.nll(theta.Data)
	}
	// search minimises g over (r, t) from (r0, t0), starting at value v0.
	search := func(r0, t0, v0 float64, g func(r, t float64) float64) (float64, float64, float64) {
		best, bestR, bestT := v0, r0, t0
		stepA, stepB := 1.0, 0.5 // a in units of t0, b in nats of t
		for range 3 {
			cr, ct := bestR, bestT
			for i := -4; i <= 4; i++ {
				for j := -4; j <= 4; j++ {
					rr, tt := cr+float64(i)*stepA*t0, ct*math.Exp(float64(j)*stepB)
					if v := g(rr, tt); v < best {
						best, bestR, bestT = v, rr, tt
					}
				}
			}
			stepA, stepB = stepA/4, stepB/4
		}
		return bestR, bestT, best
	}
	f.Before = nll(f.R, f.T, f.LevelR, f.LevelT)
	v := f.Before
	shared := !(m.Cfg.Tree.FDLevelTemp > 0)
	if shared {
		// One r and t for both, as training had them.
		f.R, f.T, v = search(f.R, f.T, v, func(r, t float64) float64 { return nll(r, t, r, t) })
		f.LevelR, f.LevelT = f.R, f.T
	}
	switch {
	case levels:
		for range 2 {
			f.LevelR, f.LevelT, v = search(f.LevelR, f.LevelT, v, func(r, t float64) float64 { return nll(f.R, f.T, r, t) })
			f.R, f.T, v = search(f.R, f.T, v, func(r, t float64) float64 { return nll(r, t, f.LevelR, f.LevelT) })
		}
	case !shared:
		// The level σ has its own already: fit the path σ's alone.
		f.R, f.T, v = search(f.R, f.T, v, func(r, t float64) float64 { return nll(r, t, f.LevelR, f.LevelT) })
	}
	f.After = v
	m.SetSimilarity(f.R, f.T)
	if levels {
		m.SetLevelSimilarity(f.LevelR, f.LevelT)
	}
	return f, nil
}

// tokenColumns holds, for every distinct word of every document, its count
// and β's column for that word (T values), so that the NLL of any θ is a
// dot product per token.
type tokenColumns struct {
	T     int
	ptr   []int64   // (N+1) document offsets into count
	count []float32 // (tokens)
	col   []float32 // (tokens, T) β_tw
	total float64   // Σ counts
	word  []int32   // (tokens) word ids
	mix   model.WordMix
}

func newTokenColumns(in *model.Inputs, docs []int32, beta *tensor.Tensor, mix model.WordMix) *tokenColumns {
	T, V := beta.Shape[0], beta.Shape[1]
	ptr, word, count := in.SubsetBoW(docs)
	tc := &tokenColumns{T: T, ptr: ptr, count: count, col: make([]float32, len(word)*T), word: word, mix: mix}
	for k, w := range word {
		for t := range T {
			tc.col[k*T+t] = beta.Data[t*V+int(w)]
		}
		tc.total += float64(count[k])
	}
	return tc
}

// topicProb is Σ_t θ_t β_tw for token k (its word w) of a document whose
// θ is th (T).
func (tc *tokenColumns) topicProb(th []float32, k int64) float64 {
	var p float64
	for t, v := range tc.col[int(k)*tc.T : int(k+1)*tc.T] {
		p += float64(th[t]) * float64(v)
	}
	return p
}

// nll is −Σ count·log p_iw / Σ count for theta (N,T), p_iw the model's
// word probability mix.Prob(Σ_t θ_it β_tw, w) (Σ_t θ_it β_tw itself
// without the background mixture).
func (tc *tokenColumns) nll(theta []float32) float64 {
	T := tc.T
	var s float64
	for i := 0; i+1 < len(tc.ptr); i++ {
		th := theta[i*T : (i+1)*T]
		for k := tc.ptr[i]; k < tc.ptr[i+1]; k++ {
			s -= float64(tc.count[k]) * math.Log(tc.mix.Prob(tc.topicProb(th, k), tc.word[k]))
		}
	}
	if tc.total == 0 {
		return math.NaN()
	}
	return s / tc.total
}
