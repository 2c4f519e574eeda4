// Package evaluate scores a trained model by the paper's protocol (docs/design.md,
// "Evaluation protocol"): kNN classification of the test documents from the
// training documents' embeddings, the supervised head's predictions, link
// prediction among test documents, the perplexity exponent of the test
// documents, and NPMI and diversity of the topics.
package evaluate

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/parallel"
	"github.com/gtformer/gtformer/internal/phases"
	"github.com/gtformer/gtformer/internal/progress"
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
)

// Test holds the test-split metrics (F1 and AUC in percent); pointers are nil
// when not applicable (no labels, unsupervised, no test links).
type Test struct {
	KNNMicroF1 *float64 `json:"knn_micro_f1,omitempty"`
	KNNMacroF1 *float64 `json:"knn_macro_f1,omitempty"`
	SupMicroF1 *float64 `json:"sup_micro_f1,omitempty"`
	SupMacroF1 *float64 `json:"sup_macro_f1,omitempty"`
	LinkAUC    *float64 `json:"link_auc,omitempty"`
	// LogPerplexity is the perplexity exponent of the test documents with θ
	// inferred from each whole document (the paper's form);
	// LogPerplexityCompletion the document-completion form: θ inferred from
	// a random half of each test document's words (and its links, as
	// always), the other half scored (metrics.CompletionSplit).
	LogPerplexity           *float64 `json:"log_perplexity,omitempty"`
	LogPerplexityCompletion *float64 `json:"log_perplexity_completion,omitempty"`

	// EvalQueries is the number of test documents that kNN and link AUC
	// scored as queries, each against every reference document (every
	// training document for kNN, every test document for link ranking);
	// EvalSampled says whether they were a uniform sample of the test
	// documents (Options.Queries) rather than all of them. Then
	// KNNMicroF1SE and LinkAUCSE are the standard errors of the two
	// estimates, in percent: binomial √(p(1−p)/n) for Micro-F1, the
	// sample standard deviation of the per-document AUCs over √n for AUC.
	// Run sets them; Score (validation) does not.
	EvalQueries  int      `json:"eval_queries,omitempty"`
	EvalSampled  *bool    `json:"eval_sampled,omitempty"`
	KNNMicroF1SE *float64 `json:"knn_micro_f1_se,omitempty"`
	LinkAUCSE    *float64 `json:"link_auc_se,omitempty"`
}

// Topics holds the topic-quality metrics (package metrics defines each,
// with its source). Fractions, not percent.
type Topics struct {
	Count     int     `json:"count"`
	Depth     int     `json:"depth"`
	PerLevel  []int   `json:"per_level"`
	NPMI      float64 `json:"npmi"`
	NPMIRef   string  `json:"npmi_reference"`
	Diversity float64 `json:"diversity"`

	// LevelShare is each level's share of the training documents' words,
	// root first (sums to 1); Specialization each level's mean
	// 1 − cos(β_t, corpus word distribution), root first.
	LevelShare     []float64 `json:"level_share,omitempty"`
	Specialization []float64 `json:"specialization,omitempty"`
	// NPMIPerLevel and DiversityPerLevel are NPMI (top 10) and topic
	// diversity (top 25) over each level's topics, root first.
	NPMIPerLevel      []float64 `json:"npmi_per_level,omitempty"`
	DiversityPerLevel []float64 `json:"diversity_per_level,omitempty"`
	// The hierarchy's affinity and diversity (metrics.Affinity); absent
	// where the tree has no such pairs.
	PCC  *float64 `json:"pcc,omitempty"`
	PCD  *float64 `json:"pcd,omitempty"`
	SD   *float64 `json:"sd,omitempty"`
	PnCD *float64 `json:"pncd,omitempty"`
	// RecoveryNMI is set for a corpus with a planted tree (the built-in
	// one, or a folder data synth wrote): NMI between the planted leaves and the learned paths of the
	// training documents (Recovery); nil otherwise.
	RecoveryNMI *float64 `json:"recovery_nmi,omitempty"`
}

// Result is everything evaluate computes, plus the embeddings it used.
type Result struct {
	Test   Test
	Topics Topics
	Emb    *model.Embeddings // all documents, in document order
}

// Options tune the evaluation.
type Options struct {
	K          int // kNN neighbours (default 5)
	MaxNbrs    int // neighbours a document aggregates at inference (default 64)
	EmbedBatch int // documents per inference batch (default 128)
	// Phases, when set, receives the time of the final embedding and of
	// the scoring ("final embedding", "evaluation").
	Phases *phases.Record
	// Planted, for a corpus with a planted tree (the built-in one, or a
	// folder data synth wrote: synth.Truth.Leaf), is each document's
	// planted leaf; Run then sets
	// Topics.RecoveryNMI. Ignored unless it has one entry per document.
	Planted []int32
	// Queries caps the test documents that kNN and link AUC score as
	// queries: with more test documents than that, Run scores a uniform
	// sample of Queries of them drawn from Seed (QuerySample), each still
	// against every reference document, so the two metrics become
	// estimates of the same per-document means at a cost linear in the
	// corpus. 0 means DefaultQueries; AllQueries (or any negative number)
	// scores every test document.
	Queries int
	// Seed draws the sample of queries: the run's seed, so that the same
	// seed scores the same sample.
	Seed uint64
}

// DefaultQueries is Options.Queries by default: the paper's corpora, with
// test sets of under a thousand documents, are scored in full.
const DefaultQueries = 10000

// AllQueries as Options.Queries scores every test document however many
// there are: the exact metrics, quadratic in the corpus.
const AllQueries = -1

func (o *Options) defaults() {
	if o.K <= 0 {
		o.K = metrics.DefaultK
	}
	if o.MaxNbrs <= 0 {
		o.MaxNbrs = 64
	}
	if o.EmbedBatch <= 0 {
		o.EmbedBatch = 128
	}
	if o.Queries == 0 {
		o.Queries = DefaultQueries
	}
}

// Run embeds every document (test documents through their links to training
// documents) and computes the metrics. The hop features of in (if the model
// reads them) are propagated anew over the same neighbour lists. Above
// opt.Queries test documents, kNN and link AUC are estimated on a uniform
// sample of them (ScoreQueries), which Test's EvalQueries and EvalSampled
// record.
func Run(m *model.Model, g *corpus.Graph, s *corpus.Split, in *model.Inputs, opt Options) *Result {
	opt.defaults()
	stop := opt.Phases.Start("final embedding")
	all := make([]int32, g.NumDocs())
	for i := range all {
		all[i] = int32(i)
	}
	in = m.WithFeatures(in, s.TrainNeighbors32)
	emb := m.Embed(in, all, s.TrainNeighbors32, opt.MaxNbrs, opt.EmbedBatch)
	stop()
	defer opt.Phases.Start("evaluation")()
	res := &Result{Emb: emb}
	queries := QuerySample(len(s.Test), opt.Queries, opt.Seed)
	res.Test = ScoreQueries(m, g, s, emb, opt.K, queries)
	if len(s.Test) > 0 {
		sampled := queries != nil
		res.Test.EvalQueries, res.Test.EvalSampled = len(s.Test), &sampled
		if sampled {
			res.Test.EvalQueries = len(queries)
		}
	}
	res.Test.LogPerplexityCompletion = ptr(Completion(m, g, s, opt))
	res.Topics = TopicQuality(m, g, s, emb, in.Len)
	if len(opt.Planted) == g.NumDocs() {
		if nmi := Recovery(m, emb, opt.Planted, s.Train); !math.IsNaN(nmi) {
			res.Topics.RecoveryNMI = &nmi
		}
	}
	return res
}

// CompletionSeed fixes the halves of the document-completion perplexity;
// metrics owns it, so the baselines (package baseline) score the same words.
const CompletionSeed = metrics.CompletionSeed

// Completion returns the document-completion perplexity exponent of the
// test documents: each is reduced to a random half of its words
// (metrics.CompletionSplit), embedded from that half and its links to
// training documents, and the other half is scored under θ β. NaN without
// test documents.
func Completion(m *model.Model, g *corpus.Graph, s *corpus.Split, opt Options) float64 {
	opt.defaults()
	if len(s.Test) == 0 {
		return math.NaN()
	}
	observed, heldOut := metrics.CompletionSplit(metrics.Subset(g, s.Test), CompletionSeed)
	half := g.WithDocs(s.Test, observed)
	emb := m.Embed(m.Inputs(half, s.TrainNeighbors32), s.Test, s.TrainNeighbors32, opt.MaxNbrs, opt.EmbedBatch)
	beta := m.Beta()
	return metrics.PerplexityExponentMix(m.FoldIn(emb.Theta, beta, observed), beta, emb.Topics, heldOut, m.Topics.WordMix().Func())
}

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// rows gathers the rows of docs from a (N,dim) matrix.
func rows(x []float32, dim int, docs []int32) []float32 {
	out := make([]float32, 0, len(docs)*dim)
	for _, d := range docs {
		out = append(out, x[int(d)*dim:int(d+1)*dim]...)
	}
	return out
}

// QuerySample returns the positions in s.Test of the test documents that
// kNN and link AUC score when there are n of them and the cap is q
// (Options.Queries): nil, meaning all of them, when q ≤ 0 or q ≥ n;
// otherwise a uniform sample of q distinct positions without replacement
// (a partial Fisher–Yates shuffle), in increasing order, drawn from seed
// alone: the same n, q and seed give the same sample.
func QuerySample(n, q int, seed uint64) []int {
	if q <= 0 || q >= n {
		return nil
	}
	rng := rand.New(rand.NewPCG(seed, querySampleStream))
	pos := make([]int, n)
	for i := range pos {
		pos[i] = i
	}
	for i := range q {
		j := i + rng.IntN(n-i)
		pos[i], pos[j] = pos[j], pos[i]
	}
	pos = pos[:q:q]
	slices.Sort(pos)
	return pos
}

// querySampleStream is the PCG stream of QuerySample ("qsample"), apart from
// the other draws made from the run's seed.
const querySampleStream = 0x7173616d706c65

// Score computes the test metrics from embeddings of all documents.
func Score(m *model.Model, g *corpus.Graph, s *corpus.Split, emb *model.Embeddings, k int) Test {
	return ScoreQueries(m, g, s, emb, k, nil)
}

// ScoreQueries is Score with kNN Micro-/Macro-F1 and link AUC computed over
// the test documents at positions queries of s.Test (QuerySample; nil: all
// of them, which is Score). Each query is scored exactly as in Score: its
// neighbours are found among all training documents and its link ranking
// is over all test documents, by the same method (exact or blocked, chosen
// by the size of the whole test set), so a query's prediction and AUC are
// those it gets in Score, and the sampled metrics estimate Score's. With a
// sample, KNNMicroF1SE and LinkAUCSE are set. The supervised head's F1 and
// the perplexity, linear in the test set, always cover every test document.
func ScoreQueries(m *model.Model, g *corpus.Graph, s *corpus.Split, emb *model.Embeddings, k int, queries []int) Test {
	var t Test
	dim := emb.Width + 1
	sampled := queries != nil
	qDocs := s.Test
	if sampled {
		qDocs = make([]int32, len(queries))
		for i, p := range queries {
			qDocs[i] = s.Test[p]
		}
	}
	if g.Labels != nil && len(qDocs) > 0 && len(s.Train) > 0 {
		yTrain := labelsOf(g, s.Train)
		yTest := labelsOf(g, s.Test)
		yQuery := labelsOf(g, qDocs)
		// Blocked or exact as for the whole test set, so that a sampled
		// query finds the neighbours it finds unsampled.
		blocked := int64(len(s.Train))*int64(len(s.Test)) > metrics.ExactKNNPairs
		pred := knn(m, rows(emb.Points, dim, s.Train), yTrain, rows(emb.Points, dim, qDocs), dim, k, blocked)
		t.KNNMicroF1 = ptr(metrics.MicroF1(yQuery, pred))
		t.KNNMacroF1 = ptr(metrics.MacroF1(yQuery, pred))
		if sampled && t.KNNMicroF1 != nil {
			t.KNNMicroF1SE = ptr(metrics.MicroF1SE(*t.KNNMicroF1, len(qDocs)))
		}
		if emb.Pred != nil {
			sp := make([]int32, len(s.Test))
			for i, d := range s.Test {
				sp[i] = emb.Pred[d]
			}
			t.SupMicroF1 = ptr(metrics.MicroF1(yTest, sp))
			t.SupMacroF1 = ptr(metrics.MacroF1(yTest, sp))
		}
	}
	if len(s.TestLinks) > 0 {
		var per []float64 // per-query AUCs
		if len(s.Test) <= ExactLinkDocs {
			per = metrics.LinkAUCDocs(s.Test, s.TestLinks, queries, LinkScore(m, emb))
		} else {
			score := LinkScoreBlock(m, emb, s.Test)
			bar := bar(m, "link AUC", len(qDocs))
			per = metrics.LinkAUCDocsBlocked(s.Test, s.TestLinks, queries, func(rows []int, dst []float64) {
				score(rows, dst)
				bar.Add(int64(len(rows)))
			})
			bar.Finish()
		}
		if auc, se, n := metrics.MeanSE(per); n > 0 {
			t.LinkAUC = ptr(auc)
			if sampled {
				t.LinkAUCSE = ptr(se)
			}
		}
	}
	if len(s.Test) > 0 {
		docs := metrics.Subset(g, s.Test)
		beta := m.Beta()
		theta := m.FoldIn(rows(emb.Theta, emb.Topics, s.Test), beta, docs)
		t.LogPerplexity = ptr(metrics.PerplexityExponentMix(theta, beta, emb.Topics, docs, m.Topics.WordMix().Func()))
	}
	return t
}

// knnChunk is the number of test rows knn classifies between two updates
// of its progress bar.
const knnChunk = 4096

// knn is metrics.KNN, or metrics.KNNBlocked when blocked, with a progress
// bar on m.Progress on the blocked path: the test rows go in chunks, each
// row classified on its own, so the predictions are those of one call.
// Unblocked, the caller guarantees that the training × test pairs are at
// most metrics.ExactKNNPairs, so that metrics.KNN scans exactly.
func knn(m *model.Model, train []float32, yTrain []int32, test []float32, dim, k int, blocked bool) []int32 {
	nTe := len(test) / dim
	if !blocked {
		return metrics.KNN(train, yTrain, test, dim, k)
	}
	if m.Progress == nil {
		return metrics.KNNBlocked(train, yTrain, test, dim, k)
	}
	bar := bar(m, "kNN", nTe)
	defer bar.Finish()
	pred := make([]int32, 0, nTe)
	for lo := 0; lo < nTe; lo += knnChunk {
		hi := min(lo+knnChunk, nTe)
		pred = append(pred, metrics.KNNBlocked(train, yTrain, test[lo*dim:hi*dim], dim, k)...)
		bar.Add(int64(hi - lo))
	}
	return pred
}

// bar returns a progress bar over n items on m.Progress (nil without one),
// silent for work that ends within a few seconds.
func bar(m *model.Model, label string, n int) *progress.Bar {
	if m.Progress == nil {
		return nil
	}
	return progress.New(m.Progress, label, int64(n), progress.Delay(3*time.Second))
}

func labelsOf(g *corpus.Graph, docs []int32) []int32 {
	y := make([]int32, len(docs))
	for i, d := range docs {
		y[i] = g.Labels[d]
	}
	return y
}

// LinkScore returns the paper's link score −d(d_i,d_j)² on the model's
// manifold from the documents' points: for the hyperboloid it is computed in
// float64 from the spatial coordinates (time coordinates recomputed) by the
// chord form d = 2√K·asinh(‖x−y‖_L/(2√K)) that package lorentz uses, and for
// the Euclidean ablation it is −‖x−y‖². The chord form matters for nearby
// points far from the origin: the Minkowski form arcosh(−⟨x,y⟩_L/K) cancels
// about 2·log10(x0) digits (9 at radius 12) and gave a point a nonzero
// distance to itself.
func LinkScore(m *model.Model, emb *model.Embeddings) metrics.ScoreFunc {
	n := emb.Width
	pts := emb.Points
	if m.Cfg.Geometry == "euclidean" {
		return metrics.NegSqEuclidean(pts, n+1)
	}
	K := m.Cfg.Curvature
	return func(i, j int32) float64 {
		x := pts[int(i)*(n+1)+1 : int(i+1)*(n+1)]
		y := pts[int(j)*(n+1)+1 : int(j+1)*(n+1)]
		var xx, yy, diff, dsum float64 // |x|², |y|², |x−y|², (x−y)·(x+y)
		for c := range x {
			a, b := float64(x[c]), float64(y[c])
			xx += a * a
			yy += b * b
			diff += (a - b) * (a - b)
			dsum += (a - b) * (a + b)
		}
		dt := dsum / (math.Sqrt(K+xx) + math.Sqrt(K+yy)) // x0 − y0, free of cancellation
		chord := math.Sqrt(math.Max(diff-dt*dt, 0))      // ‖x−y‖_L
		d := 2 * math.Sqrt(K) * math.Asinh(chord/(2*math.Sqrt(K)))
		return -d * d
	}
}

// ExactLinkDocs is the largest test set whose link AUC Score computes pair by
// pair with LinkScore (float64 throughout; the paper's corpora have at most
// a few hundred test documents with links); larger ones go through
// LinkScoreBlock, whose n² dot products are matrix products.
const ExactLinkDocs = 10000

// LinkScoreBlock is LinkScore for metrics.LinkAUCBlocked over the documents
// test: a block of anchors is scored against every test document from the
// dot products of their coordinates (spatial coordinates on the
// hyperboloid), computed as one float32 matrix product (tensor.Gemm), and
// float64 squared norms. On the hyperboloid ‖x−y‖² = |x|²+|y|²−2x·y feeds
// the chord form of LinkScore; this loses the digits that form keeps for
// nearby points far from the origin, an approximation only the large test
// sets that need it accept.
func LinkScoreBlock(m *model.Model, emb *model.Embeddings, test []int32) metrics.BlockScoreFunc {
	n := emb.Width
	off, dim := 1, n // spatial coordinates
	euclid := m.Cfg.Geometry == "euclidean"
	if euclid {
		off, dim = 0, n+1
	}
	T := len(test)
	x := make([]float32, T*dim)
	sq := make([]float64, T)
	for p, d := range test {
		row := emb.Points[int(d)*(n+1)+off : int(d+1)*(n+1)]
		copy(x[p*dim:], row)
		for _, v := range row {
			sq[p] += float64(v) * float64(v)
		}
	}
	K := m.Cfg.Curvature
	var a, dots []float32
	return func(rows []int, dst []float64) {
		a = a[:0]
		for _, p := range rows {
			a = append(a, x[p*dim:(p+1)*dim]...)
		}
		dots = slices.Grow(dots[:0], len(rows)*T)[:len(rows)*T]
		tensor.Gemm(false, true, len(rows), T, dim, 1, a, dim, x, dim, 0, dots, T)
		parallel.For(len(rows), 1, T*dim, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				xx := sq[rows[r]]
				out := dst[r*T : (r+1)*T]
				for q, dot := range dots[r*T : (r+1)*T] {
					yy := sq[q]
					diff := math.Max(xx+yy-2*float64(dot), 0)
					if euclid {
						out[q] = -diff
						continue
					}
					dt := (xx - yy) / (math.Sqrt(K+xx) + math.Sqrt(K+yy)) // x0 − y0
					chord := math.Sqrt(math.Max(diff-dt*dt, 0))
					dist := 2 * math.Sqrt(K) * math.Asinh(chord/(2*math.Sqrt(K)))
					out[q] = -dist * dist
				}
			}
		})
	}
}

// TopicQuality computes NPMI (top-10 words, document co-occurrence over the
// training documents), diversity (top-25), the tree's shape, and the
// hierarchy's measures: level shares over the training documents' θ (emb,
// indexed by document; lengths[d] = |d|), specialization against the
// training documents' word distribution, NPMI and diversity per level, and
// the affinity measures (metrics.Affinity).
func TopicQuality(m *model.Model, g *corpus.Graph, s *corpus.Split, emb *model.Embeddings, lengths []int) Topics {
	tab := m.Topics.Tables()
	beta := m.Beta()
	top10 := metrics.TopWords(beta, tab.T, metrics.DefaultNPMIWords)
	top25 := metrics.TopWords(beta, tab.T, metrics.DefaultDiversityWords)
	ref := metrics.NewReference("training documents", metrics.Subset(g, s.Train))
	_, npmi := ref.NPMI(top10, metrics.DefaultNPMIWords)
	per := make([]int, tab.Depth)
	for _, l := range tab.Level {
		per[l]++
	}
	h := metrics.Hierarchy{Parent: make([]int, tab.T), Level: make([]int, tab.T)}
	for r := range tab.T {
		h.Parent[r], h.Level[r] = int(tab.Parent[r]), int(tab.Level[r])
	}
	theta := rows(emb.Theta, emb.Topics, s.Train)
	lens := make([]int, len(s.Train))
	for i, d := range s.Train {
		lens[i] = lengths[d]
	}
	aff := ref.HierarchyAffinity(top10, h)
	return Topics{
		Count:             tab.T,
		Depth:             tab.Depth,
		PerLevel:          per,
		NPMI:              npmi,
		NPMIRef:           ref.Name,
		Diversity:         metrics.TopicDiversity(top25, metrics.DefaultDiversityWords),
		LevelShare:        metrics.LevelShares(theta, lens, h),
		Specialization:    metrics.Specialization(beta, unigram(g, s.Train), h),
		NPMIPerLevel:      metrics.PerLevel(top10, h, func(ts [][]int32) float64 { _, v := ref.NPMI(ts, metrics.DefaultNPMIWords); return v }),
		DiversityPerLevel: metrics.PerLevel(top25, h, func(ts [][]int32) float64 { return metrics.TopicDiversity(ts, metrics.DefaultDiversityWords) }),
		PCC:               ptr(aff.PCC),
		PCD:               ptr(aff.PCD),
		SD:                ptr(aff.SD),
		PnCD:              ptr(aff.PnCD),
	}
}

// unigram returns the word distribution of docs (V).
func unigram(g *corpus.Graph, docs []int32) []float64 {
	u := make([]float64, len(g.Vocab))
	var n float64
	for _, d := range docs {
		for _, w := range g.Doc(int(d)) {
			u[w]++
			n++
		}
	}
	for w := range u {
		u[w] /= max(n, 1)
	}
	return u
}
