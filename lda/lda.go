package lda

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"gonum.org/v1/gonum/stat/distuv"
)

// Bags is a collection of documents as bags of words: document i holds the
// distinct word ids words[k] (in [0,V)) with counts counts[k] (finite, ≥ 0).
// *corpus.BoW rows satisfy it through a small adapter (see package
// baseline).
type Bags interface {
	NumDocs() int
	Row(i int) (words []int32, counts []float32)
}

// BagList is a Bags held in memory: Words[i] and Counts[i] are document i's
// distinct words and their counts.
type BagList struct {
	Words  [][]int32
	Counts [][]float32
}

// NumDocs is the number of documents.
func (b BagList) NumDocs() int { return len(b.Words) }

// Row returns document i's words and counts.
func (b BagList) Row(i int) ([]int32, []float32) { return b.Words[i], b.Counts[i] }

// The scikit-learn defaults.
const (
	DefaultMaxIter          = 100
	DefaultMaxDocUpdateIter = 100
	DefaultMeanChangeTol    = 1e-3
)

// Options configure Fit. Zero values take scikit-learn's defaults.
type Options struct {
	// DocTopicPrior is α and TopicWordPrior is η (default 1/T each).
	DocTopicPrior  float64
	TopicWordPrior float64
	// MaxIter is the number of EM iterations (default 100).
	MaxIter int
	// MaxDocUpdateIter bounds the γ updates of one document in one E-step
	// (default 100); MeanChangeTol stops them earlier, when the mean
	// absolute change of γ_d falls below it (default 1e-3).
	MaxDocUpdateIter int
	MeanChangeTol    float64
	// Seed fixes the random start of λ and the E-steps' random starts of γ.
	Seed uint64
	// Workers run the E-step over documents (default GOMAXPROCS). The
	// result does not depend on it.
	Workers int
	// Progress, if set, is called after every iteration's M-step.
	Progress func(Progress)
}

// Progress reports one finished iteration.
type Progress struct {
	Iter  int       // 1-based
	Model *Model    // λ after this iteration's M-step (do not keep: it changes)
	Gamma []float64 // (N,T) this iteration's E-step γ, from which the M-step took its statistics
}

// Model is a fitted LDA: the variational parameters λ of the topics and the
// settings that Transform uses.
type Model struct {
	Topics int // T
	Vocab  int // V
	// Lambda (T,V) row-major: topic t's variational Dirichlet parameters,
	// scikit-learn's components_.
	Lambda           []float64
	DocTopicPrior    float64 // α
	TopicWordPrior   float64 // η
	MaxDocUpdateIter int
	MeanChangeTol    float64
	// Iterations is the number of EM iterations Fit ran.
	Iterations int

	workers int
	// expElogBeta (V,T), word-major so one word's T values are contiguous
	// in the E-step's inner loop: exp(E[log β_tw]).
	expElogBeta []float64
}

// Fit fits T topics to docs over a vocabulary of V words by batch
// variational Bayes (see the package doc). It returns an error for bad
// settings or input (a word outside [0,V), a negative or non-finite count,
// no documents).
func Fit(docs Bags, V, T int, opt Options) (*Model, error) {
	m, err := newModel(V, T, opt)
	if err != nil {
		return nil, err
	}
	if docs.NumDocs() == 0 {
		return nil, errors.New("lda: no documents to fit")
	}
	if err := m.check(docs); err != nil {
		return nil, err
	}
	m.Lambda = make([]float64, T*V)
	g := distuv.Gamma{Alpha: initShape, Beta: initShape, Src: rand.NewPCG(opt.Seed, lambdaStream)}
	for i := range m.Lambda {
		m.Lambda[i] = g.Rand()
	}
	iters := opt.MaxIter
	if iters == 0 {
		iters = DefaultMaxIter
	}
	m.fit(docs, iters, func(iter, d int, gamma []float64) { randomStart(opt.Seed, iter, d, gamma) }, opt.Progress)
	return m, nil
}

// initShape is the shape and rate of the Gamma draws that start λ and γ
// (mean 1, standard deviation 0.1), as scikit-learn's gamma(100, 1/100).
const initShape = 100

// lambdaStream is the PCG stream of λ's start; the E-step's starts use
// streams derived from (iteration, document), see randomStart.
const lambdaStream = 0x6c616d626461 // "lambda"

// randomStart fills gamma with independent Gamma(100, 1/100) draws from a
// stream of its own for (iter, d), so the draws do not depend on which
// worker runs the document, nor in what order.
func randomStart(seed uint64, iter, d int, gamma []float64) {
	src := rand.NewPCG(seed, mix(uint64(iter)<<32|uint64(uint32(d))))
	g := distuv.Gamma{Alpha: initShape, Beta: initShape, Src: src}
	for t := range gamma {
		gamma[t] = g.Rand()
	}
}

// mix is SplitMix64's finaliser: nearby (iteration, document) keys give
// unrelated PCG streams.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// newModel checks the settings and fills the defaults; Lambda is left nil.
func newModel(V, T int, opt Options) (*Model, error) {
	switch {
	case T < 1:
		return nil, fmt.Errorf("lda: the number of topics must be at least 1, got %d", T)
	case V < 1:
		return nil, fmt.Errorf("lda: the vocabulary must hold at least one word, got %d", V)
	case opt.MaxIter < 0:
		return nil, fmt.Errorf("lda: MaxIter must not be negative, got %d", opt.MaxIter)
	case opt.MaxDocUpdateIter < 0:
		return nil, fmt.Errorf("lda: MaxDocUpdateIter must not be negative, got %d", opt.MaxDocUpdateIter)
	case opt.DocTopicPrior < 0 || math.IsNaN(opt.DocTopicPrior) || math.IsInf(opt.DocTopicPrior, 0):
		return nil, fmt.Errorf("lda: DocTopicPrior must be positive and finite, got %v", opt.DocTopicPrior)
	case opt.TopicWordPrior < 0 || math.IsNaN(opt.TopicWordPrior) || math.IsInf(opt.TopicWordPrior, 0):
		return nil, fmt.Errorf("lda: TopicWordPrior must be positive and finite, got %v", opt.TopicWordPrior)
	case opt.MeanChangeTol < 0 || math.IsNaN(opt.MeanChangeTol):
		return nil, fmt.Errorf("lda: MeanChangeTol must not be negative, got %v", opt.MeanChangeTol)
	}
	m := &Model{
		Topics: T, Vocab: V,
		DocTopicPrior: opt.DocTopicPrior, TopicWordPrior: opt.TopicWordPrior,
		MaxDocUpdateIter: opt.MaxDocUpdateIter, MeanChangeTol: opt.MeanChangeTol,
		workers: opt.Workers,
	}
	if m.DocTopicPrior == 0 {
		m.DocTopicPrior = 1 / float64(T)
	}
	if m.TopicWordPrior == 0 {
		m.TopicWordPrior = 1 / float64(T)
	}
	if m.MaxDocUpdateIter == 0 {
		m.MaxDocUpdateIter = DefaultMaxDocUpdateIter
	}
	if m.MeanChangeTol == 0 {
		m.MeanChangeTol = DefaultMeanChangeTol
	}
	if m.workers <= 0 {
		m.workers = runtime.GOMAXPROCS(0)
	}
	return m, nil
}

// check validates docs against the vocabulary.
func (m *Model) check(docs Bags) error {
	for d := range docs.NumDocs() {
		words, counts := docs.Row(d)
		if len(words) != len(counts) {
			return fmt.Errorf("lda: document %d: %d words but %d counts", d, len(words), len(counts))
		}
		for k, w := range words {
			if w < 0 || int(w) >= m.Vocab {
				return fmt.Errorf("lda: document %d: word id %d outside the vocabulary of %d words", d, w, m.Vocab)
			}
			if c := float64(counts[k]); c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
				return fmt.Errorf("lda: document %d: word %d has count %v (want a finite count ≥ 0)", d, w, counts[k])
			}
		}
	}
	return nil
}

// fit runs iters EM iterations from the current Lambda; start fills a
// document's starting γ in each iteration's E-step.
func (m *Model) fit(docs Bags, iters int, start func(iter, d int, gamma []float64), progress func(Progress)) {
	T, V := m.Topics, m.Vocab
	m.refresh()
	sstats := make([]float64, V*T) // (V,T), as expElogBeta
	for it := range iters {
		clear(sstats)
		gamma := m.eStep(docs, func(d int, g []float64) { start(it, d, g) }, sstats)
		// M-step: the statistics Σ_d n_dw φ_dwt = exp(E[log β_tw]) ·
		// Σ_d n_dw exp(E[log θ_dt]) / norm_dw; eStep summed the second factor.
		for w := range V {
			for t := range T {
				m.Lambda[t*V+w] = m.TopicWordPrior + sstats[w*T+t]*m.expElogBeta[w*T+t]
			}
		}
		m.refresh()
		m.Iterations = it + 1
		if progress != nil {
			progress(Progress{Iter: it + 1, Model: m, Gamma: gamma})
		}
	}
}

// refresh recomputes expElogBeta from Lambda.
func (m *Model) refresh() {
	T, V := m.Topics, m.Vocab
	if len(m.expElogBeta) != V*T {
		m.expElogBeta = make([]float64, V*T)
	}
	for t := range T {
		row := m.Lambda[t*V : (t+1)*V]
		var sum float64
		for _, l := range row {
			sum += l
		}
		psiSum := digamma(sum)
		for w, l := range row {
			m.expElogBeta[w*T+t] = math.Exp(digamma(l) - psiSum)
		}
	}
}

// Transform returns the topic mixtures θ (N,T) of docs, row-major: the
// E-step from γ = 1 with λ fixed, each row normalised to sum 1
// (scikit-learn's transform). A document without words gets the uniform
// mixture.
func (m *Model) Transform(docs Bags) ([]float64, error) {
	gamma, err := m.Gamma(docs)
	if err != nil {
		return nil, err
	}
	T := m.Topics
	for d := range docs.NumDocs() {
		row := gamma[d*T : (d+1)*T]
		var s float64
		for _, g := range row {
			s += g
		}
		for t := range row {
			row[t] /= s
		}
	}
	return gamma, nil
}

// Gamma returns the unnormalised variational parameters γ (N,T) of docs'
// mixtures: Transform before normalisation.
func (m *Model) Gamma(docs Bags) ([]float64, error) {
	if m.expElogBeta == nil { // a Model built from its fields, not by Fit
		if err := m.validate(); err != nil {
			return nil, err
		}
		if m.workers <= 0 {
			m.workers = runtime.GOMAXPROCS(0)
		}
		m.refresh()
	}
	if err := m.check(docs); err != nil {
		return nil, err
	}
	return m.eStep(docs, ones, nil), nil
}

// validate checks a Model's fields.
func (m *Model) validate() error {
	positive := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	switch {
	case m.Topics < 1 || m.Vocab < 1:
		return fmt.Errorf("lda: a model of %d topics over %d words", m.Topics, m.Vocab)
	case len(m.Lambda) != m.Topics*m.Vocab:
		return fmt.Errorf("lda: Lambda holds %d values for %d topics × %d words", len(m.Lambda), m.Topics, m.Vocab)
	case !positive(m.DocTopicPrior) || !positive(m.TopicWordPrior):
		return fmt.Errorf("lda: the priors must be positive and finite, got α = %v, η = %v", m.DocTopicPrior, m.TopicWordPrior)
	case m.MaxDocUpdateIter < 1 || !(m.MeanChangeTol >= 0):
		return fmt.Errorf("lda: MaxDocUpdateIter %d (want ≥ 1), MeanChangeTol %v (want ≥ 0)", m.MaxDocUpdateIter, m.MeanChangeTol)
	}
	for i, l := range m.Lambda {
		if !positive(l) {
			return fmt.Errorf("lda: Lambda[%d] = %v, want positive and finite", i, l)
		}
	}
	return nil
}

func ones(_ int, g []float64) {
	for t := range g {
		g[t] = 1
	}
}

// Beta returns the topics' word distributions (T,V), row-major: λ_t
// normalised to sum 1.
func (m *Model) Beta() []float64 {
	T, V := m.Topics, m.Vocab
	out := make([]float64, T*V)
	for t := range T {
		row := m.Lambda[t*V : (t+1)*V]
		var s float64
		for _, l := range row {
			s += l
		}
		for w, l := range row {
			out[t*V+w] = l / s
		}
	}
	return out
}

// Bound returns the evidence lower bound of docs under the model (the
// package doc's formula; scikit-learn's score), with γ from the E-step
// from γ = 1 as Transform runs it.
func (m *Model) Bound(docs Bags) (float64, error) {
	gamma, err := m.Gamma(docs)
	if err != nil {
		return 0, err
	}
	T, V := m.Topics, m.Vocab
	alpha, eta := m.DocTopicPrior, m.TopicWordPrior
	lgAlpha, _ := math.Lgamma(alpha)
	lgTAlpha, _ := math.Lgamma(float64(T) * alpha)
	elogBeta := make([]float64, V*T) // (V,T)
	for i, e := range m.expElogBeta {
		elogBeta[i] = math.Log(e)
	}
	var score float64
	elogTheta := make([]float64, T)
	terms := make([]float64, T)
	for d := range docs.NumDocs() {
		g := gamma[d*T : (d+1)*T]
		dirichletExpectation(g, elogTheta)
		words, counts := docs.Row(d)
		// E[log p(w | θ, β)] with φ optimal: log Σ_t exp(E log θ + E log β).
		for k, w := range words {
			for t := range T {
				terms[t] = elogTheta[t] + elogBeta[int(w)*T+t]
			}
			score += float64(counts[k]) * logSumExp(terms)
		}
		// E[log p(θ | α) − log q(θ | γ)].
		var sum float64
		for t, gt := range g {
			lg, _ := math.Lgamma(gt)
			score += (alpha-gt)*elogTheta[t] + lg - lgAlpha
			sum += gt
		}
		lg, _ := math.Lgamma(sum)
		score += lgTAlpha - lg
	}
	// E[log p(β | η) − log q(β | λ)].
	lgEta, _ := math.Lgamma(eta)
	lgVEta, _ := math.Lgamma(float64(V) * eta)
	for t := range T {
		row := m.Lambda[t*V : (t+1)*V]
		var sum float64
		for w, l := range row {
			lg, _ := math.Lgamma(l)
			score += (eta-l)*elogBeta[w*T+t] + lg - lgEta
			sum += l
		}
		lg, _ := math.Lgamma(sum)
		score += lgVEta - lg
	}
	return score, nil
}

// dirichletExpectation sets out[t] = Ψ(g[t]) − Ψ(Σ g): E[log θ_t] under
// Dirichlet(g).
func dirichletExpectation(g, out []float64) {
	var sum float64
	for _, x := range g {
		sum += x
	}
	psiSum := digamma(sum)
	for t, x := range g {
		out[t] = digamma(x) - psiSum
	}
}

func logSumExp(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = max(mx, v)
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s)
}
