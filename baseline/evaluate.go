package baseline

import (
	"fmt"
	"math"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
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
	LinkDocs      int // query documents with at least one held-out link

	// Queries is the number of test documents kNN and link AUC scored as
	// queries, each against every reference document; Sampled says they
	// were a uniform sample (EvalOptions.Queries), QueryPositions then
	// their positions in the split's test list (evaluate.QuerySample), nil
	// when every test document was scored. With a sample, the SE fields
	// are the standard errors of the estimates in percent (binomial for
	// Micro-F1, the per-document AUCs' for link AUC, as a model's
	// evaluation reports them); NaN without one.
	Queries         int
	Sampled         bool
	QueryPositions  []int
	MicroF1SE       float64
	LinkAUCSE       float64
	LinkAUCSqDistSE float64
}

// EvalOptions tune EvaluateWith.
type EvalOptions struct {
	K int // neighbours of the kNN classifier; 0 means metrics.DefaultK
	// Queries caps the test documents that kNN and link AUC score as
	// queries, as evaluate.Options.Queries does for a model: with more
	// test documents than that, a uniform sample of Queries of them,
	// drawn by evaluate.QuerySample from Seed, each still scored against
	// every reference document. 0 means evaluate.DefaultQueries;
	// evaluate.AllQueries (any negative number) scores every test
	// document.
	Queries int
	// Seed draws the sample. A model's evaluation draws from the run's
	// seed (gtformer train --seed), so a baseline given the same seed, on
	// the same split, scores the same test documents: paired estimates.
	Seed uint64
}

// Thresholds of the blocked path (blocked.go), variables so that tests can
// send small sets down it: kNN goes blocked above exactKNNPairs
// training × test pairs, link AUC above exactLinkDocs test documents
// (the model's evaluation switches at the same sizes), both only for
// rows dense enough (useDense). Which path a query takes depends on the
// whole test set, not on the sample, so a sampled query scores as it does
// unsampled.
var (
	exactKNNPairs int64 = metrics.ExactKNNPairs
	exactLinkDocs       = evaluate.ExactLinkDocs
)

// Evaluate scores x (one row per document of g) by the paper's protocol on
// split s over every test document: kNN with k neighbours (Euclidean,
// fitted on s.Train, predicting s.Test) and link AUC over s.TestLinks.
// It is EvaluateWith with evaluate.AllQueries.
func Evaluate(g *corpus.Graph, s *corpus.Split, x *Vectors, k int) Metrics {
	return EvaluateWith(g, s, x, EvalOptions{K: k, Queries: evaluate.AllQueries})
}

// EvaluateWith scores x (one row per document of g) by the paper's protocol
// on split s: kNN (Euclidean, fitted on s.Train) and link AUC over
// s.TestLinks, for the test documents opt selects as queries. Small sets
// are scored exactly in float64 by sparse loops; large ones with rows
// dense enough go through float32 matrix products in bounded tiles
// (blocked.go), whose scores differ from the exact ones by float32
// rounding only.
func EvaluateWith(g *corpus.Graph, s *corpus.Split, x *Vectors, opt EvalOptions) Metrics {
	if x.NumRows() != g.NumDocs() {
		panic(fmt.Sprintf("baseline: Evaluate: %d rows for %d documents", x.NumRows(), g.NumDocs()))
	}
	if opt.K <= 0 {
		opt.K = metrics.DefaultK
	}
	if opt.Queries == 0 {
		opt.Queries = evaluate.DefaultQueries
	}
	nan := math.NaN()
	m := Metrics{K: opt.K, MicroF1: nan, MacroF1: nan, LinkAUC: nan, LinkAUCSqDist: nan,
		MicroF1SE: nan, LinkAUCSE: nan, LinkAUCSqDistSE: nan}
	queries := evaluate.QuerySample(len(s.Test), opt.Queries, opt.Seed)
	qDocs := s.Test
	if queries != nil {
		qDocs = make([]int32, len(queries))
		for i, p := range queries {
			qDocs[i] = s.Test[p]
		}
		m.Sampled, m.QueryPositions = true, queries
	}
	m.Queries = len(qDocs)
	norms := x.sqNorms()
	if g.Labels != nil && len(s.Train) > 0 && len(qDocs) > 0 {
		yTrain := make([]int32, len(s.Train))
		for a, d := range s.Train {
			yTrain[a] = g.Labels[d]
		}
		yQuery := make([]int32, len(qDocs))
		for a, d := range qDocs {
			yQuery[a] = g.Labels[d]
		}
		var pred []int32
		if int64(len(s.Train))*int64(len(s.Test)) > exactKNNPairs && useDense(x) {
			pred = knnDense(x, norms, s.Train, yTrain, qDocs, opt.K)
		} else {
			pred = knnSparse(x, norms, s.Train, yTrain, qDocs, opt.K)
		}
		m.MicroF1 = metrics.MicroF1(yQuery, pred)
		m.MacroF1 = metrics.MacroF1(yQuery, pred)
		if m.Sampled {
			m.MicroF1SE = metrics.MicroF1SE(m.MicroF1, len(qDocs))
		}
	}
	var perCos, perSq []float64
	if len(s.Test) > exactLinkDocs && useDense(x) {
		perCos, perSq = linkBlocked(x, s.Test, s.TestLinks, queries, norms)
	} else {
		cos, negSq := linkScores(x, s.Test, norms)
		perCos = metrics.LinkAUCDocs(s.Test, s.TestLinks, queries, cos)
		perSq = metrics.LinkAUCDocs(s.Test, s.TestLinks, queries, negSq)
	}
	var cosSE, sqSE float64
	m.LinkAUC, cosSE, m.LinkDocs = metrics.MeanSE(perCos)
	m.LinkAUCSqDist, sqSE, _ = metrics.MeanSE(perSq)
	if m.Sampled {
		m.LinkAUCSE, m.LinkAUCSqDistSE = cosSE, sqSE
	}
	return m
}

// knnSparse is Evaluate's exact kNN: per query document, its squared
// distance to every training document in float64 from sparse rows.
func knnSparse(x *Vectors, norms []float64, train []int32, yTrain []int32, queries []int32, k int) []int32 {
	return metrics.KNNFunc(len(queries), yTrain, k, func(i int, dst []float64) {
		// Scatter the query row once, then one gather per training entry:
		// cost nnz(training rows) per query.
		q := make([]float64, x.Dim)
		ti := int(queries[i])
		idx, val := x.Row(ti)
		for p, c := range idx {
			q[c] = float64(val[p])
		}
		for a, d := range train {
			bi, bv := x.Row(int(d))
			var dp float64
			for p, c := range bi {
				dp += q[c] * float64(bv[p])
			}
			dst[a] = norms[ti] + norms[d] - 2*dp
		}
	})
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
	// EvalQueries is the number of test documents scored as queries
	// (Metrics.Queries), EvalSampled whether they were a sample; the
	// standard errors are set for a sample only, as a model's
	// metrics.json has them.
	EvalQueries     int      `json:"eval_queries,omitempty"`
	EvalSampled     bool     `json:"eval_sampled,omitempty"`
	MicroF1SE       *float64 `json:"micro_f1_se,omitempty"`
	LinkAUCSE       *float64 `json:"link_auc_cosine_se,omitempty"`
	LinkAUCSqDistSE *float64 `json:"link_auc_neg_sq_dist_se,omitempty"`
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
	return Scores{MicroF1: finite(m.MicroF1), MacroF1: finite(m.MacroF1), LinkAUC: finite(m.LinkAUC), LinkAUCSqDist: finite(m.LinkAUCSqDist), LinkDocs: m.LinkDocs,
		EvalQueries: m.Queries, EvalSampled: m.Sampled,
		MicroF1SE: finite(m.MicroF1SE), LinkAUCSE: finite(m.LinkAUCSE), LinkAUCSqDistSE: finite(m.LinkAUCSqDistSE)}
}
