package baseline

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/lda"
	"github.com/gtformer/gtformer/metrics"
)

// LDAMethod is latent Dirichlet allocation (package lda) fitted on the
// training documents' bags of words; a document's vector is its topic
// mixture θ, inferred from its words. Unlike the other baselines it is
// trained (seeded, so still the same numbers for the same seed) and it is
// also a topic model, scored as one (TopicScores).
const LDAMethod Method = "lda"

// The lda baseline's defaults: 13 topics (as the scikit-learn
// figures of docs/design.md, "Baselines"), scikit-learn's 100 iterations, seed 1 (Run and Embed use them).
const (
	DefaultLDATopics = 13
	DefaultLDASeed   = 1
)

// LDAOptions configure the lda baseline.
type LDAOptions struct {
	Topics int    // T; 0 means DefaultLDATopics
	Iter   int    // EM iterations; 0 means lda.DefaultMaxIter
	Seed   uint64 // the random starts' seed (any value, 0 included)
	// FitDocs, when positive and below the number of training documents,
	// fits the topics on a uniform sample of that many training documents
	// (FitSample, drawn from Seed) instead of all of them: the fit's cost
	// is linear in the documents it reads, and on a large corpus a sample
	// of tens of thousands pins the topics down. θ is still inferred for
	// every document and the scores still cover every test document. 0:
	// every training document.
	FitDocs int
}

// FitSample returns the training documents an lda fit reads: all of
// train when n ≤ 0 or n ≥ len(train), otherwise n of them drawn uniformly
// without replacement from seed (a partial Fisher–Yates shuffle), in
// their order in train.
func FitSample(train []int32, n int, seed uint64) []int32 {
	if n <= 0 || n >= len(train) {
		return train
	}
	rng := rand.New(rand.NewPCG(seed, fitSampleStream))
	pos := make([]int, len(train))
	for i := range pos {
		pos[i] = i
	}
	for i := range n {
		j := i + rng.IntN(len(pos)-i)
		pos[i], pos[j] = pos[j], pos[i]
	}
	pos = pos[:n]
	slices.Sort(pos)
	out := make([]int32, n)
	for i, p := range pos {
		out[i] = train[p]
	}
	return out
}

// fitSampleStream is the PCG stream of FitSample ("ldafit"), apart from the
// random starts drawn from the same seed.
const fitSampleStream = 0x6c6461666974

// DefaultLDAOptions are the options Run and Embed use.
func DefaultLDAOptions() LDAOptions {
	return LDAOptions{Topics: DefaultLDATopics, Iter: lda.DefaultMaxIter, Seed: DefaultLDASeed}
}

// TopicScores are a topic model's scores by the protocol's definitions
// (package metrics), as gtformer's evaluation computes them for its tree:
// fractions and nats, not percent.
type TopicScores struct {
	Topics int // T
	// NPMI is the mean over topics of the NPMI of each topic's top-10 words
	// against NPMIRef, the training documents (pairs that never co-occur
	// count −1).
	NPMI    float64
	NPMIRef string
	// Diversity is the topic diversity of the top-25 words.
	Diversity float64
	// LogPerplexity is the perplexity exponent of the test documents, θ
	// inferred from each whole document; LogPerplexityCompletion the
	// document-completion form: θ from a random half of each test
	// document's words (metrics.CompletionSplit with metrics.CompletionSeed,
	// the halves the model is scored on), the other half scored.
	LogPerplexity           float64
	LogPerplexityCompletion float64
	// Top holds each topic's top-10 word ids, most probable first.
	Top [][]int32
}

// TopicRecord is TopicScores for JSON, null where a score is not finite
// (no test documents, a word of probability zero): the one form of a topic
// model's scores in the experiment's LDA records and `gtformer baseline
// --json`.
type TopicRecord struct {
	NPMI                    *float64 `json:"npmi"`
	NPMIRef                 string   `json:"npmi_reference"`
	Diversity               *float64 `json:"diversity"`
	LogPerplexity           *float64 `json:"log_perplexity"`
	LogPerplexityCompletion *float64 `json:"log_perplexity_completion"`
}

// Record returns s's scores for a JSON record.
func (s *TopicScores) Record() TopicRecord {
	return TopicRecord{
		NPMI: finite(s.NPMI), NPMIRef: s.NPMIRef, Diversity: finite(s.Diversity),
		LogPerplexity: finite(s.LogPerplexity), LogPerplexityCompletion: finite(s.LogPerplexityCompletion),
	}
}

// TopWords returns each topic's top words (Top) spelled from vocab.
func (s *TopicScores) TopWords(vocab []string) [][]string {
	out := make([][]string, len(s.Top))
	for t, top := range s.Top {
		out[t] = make([]string, len(top))
		for i, w := range top {
			out[t][i] = vocab[w]
		}
	}
	return out
}

// LDAResult is a fitted lda baseline.
type LDAResult struct {
	Model *lda.Model
	Theta *Vectors // (N,T): every document's θ, inferred from its words
	// Beta (T,V) is the topics' word distributions as scored (float32, as
	// the metrics take them); ThetaTest (len(s.Test),T) the test documents'
	// θ and ThetaCompletion θ of their observed halves, as scored.
	Beta            []float32
	ThetaTest       []float32
	ThetaCompletion []float32
	Scores          TopicScores
}

// FitLDA fits LDA with opt on the bags of words of s's training documents
// (a sample of them with opt.FitDocs) and scores it on s's test documents (for a Holdout split: fits on the
// training documents outside validation, scores the validation documents).
// θ is inferred for every document of g from its words alone, as
// scikit-learn's transform; links play no part.
func FitLDA(g *corpus.Graph, s *corpus.Split, opt LDAOptions) (*LDAResult, error) {
	if opt.Topics == 0 {
		opt.Topics = DefaultLDATopics
	}
	if len(s.Train) == 0 {
		return nil, errors.New("baseline: lda: the split has no training documents")
	}
	bow := g.BoW()
	V, T := len(g.Vocab), opt.Topics
	m, err := lda.Fit(bagRows{bow, FitSample(s.Train, opt.FitDocs, opt.Seed)}, V, T, lda.Options{MaxIter: opt.Iter, Seed: opt.Seed})
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err) // "baseline: lda: ..."
	}
	theta, err := m.Transform(bagRows{bow, nil})
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	beta := toFloat32(m.Beta())
	res := &LDAResult{Model: m, Theta: denseRows(theta, T), Beta: beta, ThetaTest: toFloat32(rowsOf(theta, T, s.Test))}
	res.Scores = topicScores(g, s, beta, T)
	res.Scores.LogPerplexity = metrics.PerplexityExponent(res.ThetaTest, beta, T, metrics.Subset(g, s.Test))
	// Completion: θ from the observed half only; the held-out half scored.
	observed, heldOut := metrics.CompletionSplit(metrics.Subset(g, s.Test), metrics.CompletionSeed)
	half, err := m.Transform(bagRows{g.WithDocs(s.Test, observed).BoW(), s.Test})
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	res.ThetaCompletion = toFloat32(half)
	res.Scores.LogPerplexityCompletion = metrics.PerplexityExponent(res.ThetaCompletion, beta, T, heldOut)
	return res, nil
}

// RunLDA fits and scores LDA (FitLDA) and evaluates θ as the other
// baselines' vectors (Evaluate, metrics.DefaultK neighbours).
func RunLDA(g *corpus.Graph, s *corpus.Split, opt LDAOptions) (*Result, error) {
	start := time.Now()
	r, err := FitLDA(g, s, opt)
	if err != nil {
		return nil, err // "baseline: lda: ..."
	}
	met := Evaluate(g, s, r.Theta, metrics.DefaultK)
	return &Result{Method: LDAMethod, Vectors: r.Theta, Metrics: met, Topics: &r.Scores, Elapsed: time.Since(start)}, nil
}

// topicScores computes NPMI (top 10, training documents) and diversity
// (top 25) of the topics beta (T,V).
func topicScores(g *corpus.Graph, s *corpus.Split, beta []float32, T int) TopicScores {
	top10 := metrics.TopWords(beta, T, metrics.DefaultNPMIWords)
	top25 := metrics.TopWords(beta, T, metrics.DefaultDiversityWords)
	ref := metrics.NewReference("training documents", metrics.Subset(g, s.Train))
	_, npmi := ref.NPMI(top10, metrics.DefaultNPMIWords)
	return TopicScores{
		Topics:    T,
		NPMI:      npmi,
		NPMIRef:   ref.Name,
		Diversity: metrics.TopicDiversity(top25, metrics.DefaultDiversityWords),
		Top:       top10,
	}
}

// bagRows presents some rows of a corpus.BoW (all of them when ids is nil)
// as lda.Bags.
type bagRows struct {
	bow *corpus.BoW
	ids []int32
}

func (b bagRows) NumDocs() int {
	if b.ids == nil {
		return len(b.bow.Ptr) - 1
	}
	return len(b.ids)
}

func (b bagRows) Row(i int) ([]int32, []float32) {
	if b.ids != nil {
		i = int(b.ids[i])
	}
	return b.bow.Row(i)
}

// denseRows stores a row-major (N,dim) matrix as Vectors (zeros dropped).
func denseRows(x []float64, dim int) *Vectors {
	n := len(x) / dim
	v := &Vectors{Dim: dim, Ptr: make([]int64, 1, n+1), Idx: make([]int32, 0, len(x)), Val: make([]float32, 0, len(x))}
	for i := range n {
		for c, val := range x[i*dim : (i+1)*dim] {
			if f := float32(val); f != 0 {
				v.Idx = append(v.Idx, int32(c))
				v.Val = append(v.Val, f)
			}
		}
		v.Ptr = append(v.Ptr, int64(len(v.Idx)))
	}
	return v
}

// rowsOf gathers the rows of docs from a row-major (N,dim) matrix.
func rowsOf(x []float64, dim int, docs []int32) []float64 {
	out := make([]float64, 0, len(docs)*dim)
	for _, d := range docs {
		out = append(out, x[int(d)*dim:int(d+1)*dim]...)
	}
	return out
}

func toFloat32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}
