package lda

import (
	"math"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mathext"
)

// digamma is Ψ; a variable so the reference test can put scikit-learn's
// own series in its place and compare to the last digits.
var digamma = mathext.Digamma

// eps is added to every φ normaliser, as scikit-learn does (float64's
// machine epsilon), so a word no topic explains does not divide by zero.
const eps = 0x1p-52

// waveDocs is the number of documents whose sufficient statistics are held
// at once before they are added, in document order; it bounds the E-step's
// extra memory to waveDocs documents' T × (distinct words) values.
const waveDocs = 2048

// chunkDocs is the number of documents a worker takes at a time.
const chunkDocs = 16

// eStep runs the per-document updates of every document of docs with the
// current expElogBeta and returns γ (N,T). start fills document d's starting
// γ. With sstats (V,T) non-nil it adds Σ_d n_dw exp(E[log θ_dt]) / norm_dw
// to it (the M-step multiplies by exp(E[log β_tw])), summing the documents
// in order whatever the number of workers.
func (m *Model) eStep(docs Bags, start func(d int, gamma []float64), sstats []float64) []float64 {
	T := m.Topics
	n := docs.NumDocs()
	gamma := make([]float64, n*T)
	var contrib []float64 // this wave's per-document statistics, T per (document, word)
	offs := make([]int, waveDocs+1)
	for lo := 0; lo < n; lo += waveDocs {
		hi := min(n, lo+waveDocs)
		if sstats != nil {
			offs[0] = 0
			for d := lo; d < hi; d++ {
				words, _ := docs.Row(d)
				offs[d-lo+1] = offs[d-lo] + len(words)*T
			}
			if cap(contrib) < offs[hi-lo] {
				contrib = make([]float64, offs[hi-lo])
			}
			contrib = contrib[:offs[hi-lo]]
		}
		var next atomic.Int64
		next.Store(int64(lo))
		var wg sync.WaitGroup
		for range min(m.workers, (hi-lo+chunkDocs-1)/chunkDocs) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := newScratch(T)
				for {
					a := int(next.Add(chunkDocs)) - chunkDocs
					if a >= hi {
						return
					}
					for d := a; d < min(hi, a+chunkDocs); d++ {
						g := gamma[d*T : (d+1)*T]
						start(d, g)
						words, counts := docs.Row(d)
						var out []float64
						if sstats != nil {
							out = contrib[offs[d-lo]:offs[d-lo+1]]
						}
						m.docUpdate(words, counts, g, out, s)
					}
				}
			}()
		}
		wg.Wait()
		if sstats == nil {
			continue
		}
		for d := lo; d < hi; d++ {
			words, _ := docs.Row(d)
			c := contrib[offs[d-lo]:offs[d-lo+1]]
			for k, w := range words {
				dst := sstats[int(w)*T : int(w+1)*T]
				for t, v := range c[k*T : (k+1)*T] {
					dst[t] += v
				}
			}
		}
	}
	return gamma
}

// scratch is one worker's buffers.
type scratch struct {
	expElogTheta, next []float64 // T
}

func newScratch(T int) *scratch {
	return &scratch{expElogTheta: make([]float64, T), next: make([]float64, T)}
}

// docUpdate runs one document's γ updates from the start in gamma, leaving
// the result there. With out non-nil (T per distinct word) it writes the
// document's statistics exp(E[log θ_dt]) n_dw / norm_dw.
func (m *Model) docUpdate(words []int32, counts []float32, gamma, out []float64, s *scratch) {
	T := m.Topics
	eb := m.expElogBeta
	et, next := s.expElogTheta, s.next
	expDirichlet(gamma, et)
	for range m.MaxDocUpdateIter {
		// One pass over the words: φ's normaliser n_dw / (Σ_t exp(E log θ_t)
		// exp(E log β_tw) + eps), then its share of every topic.
		clear(next)
		for k, w := range words {
			row := eb[int(w)*T : int(w+1)*T]
			r := phiScale(et, row, counts[k])
			next := next[:len(row)]
			for t, e := range row {
				next[t] += r * e
			}
		}
		var change float64
		for t := range next {
			next[t] = et[t]*next[t] + m.DocTopicPrior
			change += math.Abs(next[t] - gamma[t])
		}
		copy(gamma, next)
		expDirichlet(gamma, et)
		if change/float64(T) < m.MeanChangeTol {
			break
		}
	}
	if out == nil {
		return
	}
	// The statistics at the final γ: exp(E log θ_t) n_dw / norm_dw.
	for k, w := range words {
		r := phiScale(et, eb[int(w)*T:int(w+1)*T], counts[k])
		o := out[k*T : (k+1)*T]
		o = o[:len(et)]
		for t, e := range et {
			o[t] = e * r
		}
	}
}

// phiScale returns n_dw / (Σ_t exp(E[log θ_t]) exp(E[log β_tw]) + eps), the
// factor that turns exp(E[log θ_t]) exp(E[log β_tw]) into n_dw φ_dwt; row
// is word w's exp(E[log β_·w]) (T).
func phiScale(expElogTheta, row []float64, count float32) float64 {
	row = row[:len(expElogTheta)]
	var p float64
	for t, e := range expElogTheta {
		p += e * row[t]
	}
	return float64(count) / (p + eps)
}

// expDirichlet sets out[t] = exp(Ψ(g[t]) − Ψ(Σ g)) = exp(E[log θ_t]).
func expDirichlet(g, out []float64) {
	dirichletExpectation(g, out)
	for t, x := range out {
		out[t] = math.Exp(x)
	}
}
