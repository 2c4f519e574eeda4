package baseline

import (
	"fmt"
	"math"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/parallel"
	"github.com/gtformer/gtformer/metrics"
)

// Method names a baseline.
type Method string

// The baselines.
const (
	TFIDFMethod      Method = "tfidf"       // tf-idf vectors
	TFIDFGraphMethod Method = "tfidf-graph" // tf-idf averaged over two hops of the split's graph
	GloVeGraphMethod Method = "glove-graph" // mean word vectors averaged likewise
	TFIDFSIGNMethod  Method = "tfidf-sign"  // mean of the L2-normalised tf-idf of hops 0..SIGNHops (SIGN's features, parameter-free)
)

// Methods lists every baseline in the order tables print them.
var Methods = []Method{TFIDFMethod, TFIDFGraphMethod, GloVeGraphMethod, TFIDFSIGNMethod}

// Hops is the number of averaging rounds of the graph baselines.
const Hops = 2

// SIGNHops is the deepest hop of tfidf-sign.
const SIGNHops = 3

// ParseMethod returns the Method named s, or an error listing the choices.
func ParseMethod(s string) (Method, error) {
	for _, m := range Methods {
		if string(m) == s {
			return m, nil
		}
	}
	if s == string(LDAMethod) {
		return LDAMethod, nil
	}
	return "", fmt.Errorf("baseline: unknown baseline method %q (want tfidf, tfidf-graph, glove-graph, tfidf-sign or lda)", s)
}

// Embed computes the document vectors (N,Dim) of method m on g under split
// s. It returns ErrNoWordVectors for glove-graph on a corpus without word
// vectors.
func Embed(g *corpus.Graph, s *corpus.Split, m Method) (*Vectors, error) {
	switch m {
	case TFIDFMethod:
		return TFIDF(g, s), nil
	case TFIDFGraphMethod:
		return Smooth(TFIDF(g, s), s, Hops), nil
	case GloVeGraphMethod:
		v, err := MeanWordVectors(g)
		if err != nil {
			return nil, err
		}
		return Smooth(v, s, Hops), nil
	case TFIDFSIGNMethod:
		return SIGN(TFIDF(g, s), s, SIGNHops), nil
	case LDAMethod:
		r, err := FitLDA(g, s, DefaultLDAOptions())
		if err != nil {
			return nil, err
		}
		return r.Theta, nil
	}
	return nil, fmt.Errorf("baseline: unknown baseline method %q", m)
}

// Metrics are a representation's scores under the paper's protocol, in
// percent. A score that cannot be computed (no labels, no held-out links) is
// NaN.
type Metrics struct {
	K       int     // neighbours of the kNN classifier
	MicroF1 float64 // kNN (fitted on the training documents) on the test documents
	MacroF1 float64
	// LinkAUC ranks the other test documents by cosine similarity, per test
	// document with a held-out link, averaged.
	LinkAUC float64
	// LinkAUCSqDist ranks them by −squared Euclidean distance of the raw
	// vectors, the score the paper applies to model embeddings. On unit rows
	// (tfidf) it equals LinkAUC up to rounding, since −|a−b|² = 2cos−2; the
	// float32 norms, off 1 by ~1e-7, break the many exact cosine ties
	// (documents sharing no word) differently, which moves it by ~0.05 on
	// ML. Smoothed rows are not unit, and there the two differ for real.
	LinkAUCSqDist float64
	LinkDocs      int // test documents with at least one held-out link
}

// Evaluate scores x (one row per document of g) by the paper's protocol on
// split s: kNN with k neighbours (Euclidean, fitted on s.Train, predicting
// s.Test) and link AUC over s.TestLinks.
func Evaluate(g *corpus.Graph, s *corpus.Split, x *Vectors, k int) Metrics {
	if x.NumRows() != g.NumDocs() {
		panic(fmt.Sprintf("baseline: Evaluate: %d rows for %d documents", x.NumRows(), g.NumDocs()))
	}
	m := Metrics{K: k, MicroF1: math.NaN(), MacroF1: math.NaN(), LinkAUC: math.NaN(), LinkAUCSqDist: math.NaN()}
	norms := x.sqNorms()
	if g.Labels != nil && len(s.Train) > 0 && len(s.Test) > 0 {
		yTrain := make([]int32, len(s.Train))
		for a, d := range s.Train {
			yTrain[a] = g.Labels[d]
		}
		yTest := make([]int32, len(s.Test))
		for a, d := range s.Test {
			yTest[a] = g.Labels[d]
		}
		pred := metrics.KNNFunc(len(s.Test), yTrain, k, func(i int, dst []float64) {
			// Scatter the test row once, then one gather per training entry:
			// cost nnz(training rows) per test row.
			q := make([]float64, x.Dim)
			ti := int(s.Test[i])
			idx, val := x.Row(ti)
			for p, c := range idx {
				q[c] = float64(val[p])
			}
			for a, d := range s.Train {
				bi, bv := x.Row(int(d))
				var dp float64
				for p, c := range bi {
					dp += q[c] * float64(bv[p])
				}
				dst[a] = norms[ti] + norms[d] - 2*dp
			}
		})
		m.MicroF1 = metrics.MicroF1(yTest, pred)
		m.MacroF1 = metrics.MacroF1(yTest, pred)
	}
	cos, negSq := linkScores(x, s.Test, norms)
	m.LinkAUC, m.LinkDocs = metrics.LinkAUC(s.Test, s.TestLinks, cos)
	m.LinkAUCSqDist, _ = metrics.LinkAUC(s.Test, s.TestLinks, negSq)
	return m
}

// Result is one baseline's representation and scores.
type Result struct {
	Method  Method
	Vectors *Vectors
	Metrics Metrics
	// Topics holds a topic model's scores (lda), nil for the others.
	Topics  *TopicScores
	Elapsed time.Duration // embedding and evaluation
}

// Run embeds g with method m and evaluates the vectors with metrics.DefaultK
// neighbours; lda runs with its defaults (RunLDA).
func Run(g *corpus.Graph, s *corpus.Split, m Method) (*Result, error) {
	if m == LDAMethod {
		return RunLDA(g, s, DefaultLDAOptions())
	}
	start := time.Now()
	v, err := Embed(g, s, m)
	if err != nil {
		return nil, err
	}
	met := Evaluate(g, s, v, metrics.DefaultK)
	return &Result{Method: m, Vectors: v, Metrics: met, Elapsed: time.Since(start)}, nil
}

// maxGram is the largest test set whose pairwise dot products linkScores
// precomputes (4096² float64 = 128 MiB).
var maxGram = 4096 // a variable so tests can take the per-pair path

// linkScores returns the cosine and −squared-Euclidean scores of pairs of
// test documents. For test sets up to maxGram documents it precomputes their
// Gram matrix, one scatter and one gather pass per row, which costs about a
// quarter of per-pair sparse merges on smoothed rows; beyond that it merges
// per pair in constant memory.
func linkScores(x *Vectors, test []int32, norms []float64) (cos, negSq metrics.ScoreFunc) {
	dotf := func(i, j int32) float64 {
		ai, av := x.Row(int(i))
		bi, bv := x.Row(int(j))
		return dot(ai, av, bi, bv)
	}
	if n := len(test); n <= maxGram {
		pos := make(map[int32]int, n)
		for p, d := range test {
			pos[d] = p
		}
		gram := testGram(x, test)
		dotf = func(i, j int32) float64 { return gram[pos[i]*n+pos[j]] }
	}
	cos = func(i, j int32) float64 {
		if norms[i] == 0 || norms[j] == 0 {
			return 0
		}
		return dotf(i, j) / math.Sqrt(norms[i]*norms[j])
	}
	negSq = func(i, j int32) float64 { return -(norms[i] + norms[j] - 2*dotf(i, j)) }
	return cos, negSq
}

// testGram returns G (n,n) with G[p,q] = x_{test[p]}·x_{test[q]}, computed in
// parallel over rows; the worker owning row p writes G[p,q] and G[q,p] for
// q ≥ p, so no two workers write the same entry.
func testGram(x *Vectors, test []int32) []float64 {
	n := len(test)
	g := make([]float64, n*n)
	parallel.Each(n, func() func(p int) {
		q := make([]float64, x.Dim)
		return func(p int) {
			ai, av := x.Row(int(test[p]))
			for k, c := range ai {
				q[c] = float64(av[k])
			}
			for r := p; r < n; r++ {
				bi, bv := x.Row(int(test[r]))
				var s float64
				for k, c := range bi {
					s += q[c] * float64(bv[k])
				}
				g[p*n+r], g[r*n+p] = s, s
			}
			for _, c := range ai {
				q[c] = 0
			}
		}
	})
	return g
}

// Scores is Metrics as the JSON records hold them (baselines.json, the
// experiment's LDA fits, gtformer baseline --json): percent, null where a
// score cannot be computed (NaN or infinite). Records embed it, so its
// fields sit among theirs.
type Scores struct {
	MicroF1       *float64 `json:"micro_f1"`
	MacroF1       *float64 `json:"macro_f1"`
	LinkAUC       *float64 `json:"link_auc_cosine"`
	LinkAUCSqDist *float64 `json:"link_auc_neg_sq_dist"`
	LinkDocs      int      `json:"link_docs"`
}

// finite maps NaN and ±Inf to nil, which JSON prints as null.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Scores returns m's scores for a JSON record.
func (m Metrics) Scores() Scores {
	return Scores{MicroF1: finite(m.MicroF1), MacroF1: finite(m.MacroF1), LinkAUC: finite(m.LinkAUC), LinkAUCSqDist: finite(m.LinkAUCSqDist), LinkDocs: m.LinkDocs}
}
