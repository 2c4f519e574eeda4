package train

import (
	"fmt"
	"math"
	"slices"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/evaluate"
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/model"
)

// sampleSplit returns h reduced to at most max evenly spaced training and
// validation (test-side) documents and the held-out links among the kept
// validation documents; h itself when neither list is longer (or max is 0).
func sampleSplit(h *corpus.Split, max int) *corpus.Split {
	if max <= 0 || (len(h.Train) <= max && len(h.Test) <= max) {
		return h
	}
	r := *h
	r.Train = evenSample(h.Train, max)
	r.Test = evenSample(h.Test, max)
	r.TestLinks = linksWithin(h.TestLinks, r.Test)
	return &r
}

// evenSample returns at most max of docs, evenly spaced (docs itself when
// it is short enough).
func evenSample(docs []int32, max int) []int32 {
	if len(docs) <= max {
		return docs
	}
	out := make([]int32, max)
	for i := range out {
		out[i] = docs[int64(i)*int64(len(docs))/int64(max)]
	}
	return out
}

// linksWithin returns the links whose two ends are both in docs.
func linksWithin(links [][2]int32, docs []int32) [][2]int32 {
	in := make(map[int32]bool, len(docs))
	for _, d := range docs {
		in[d] = true
	}
	var out [][2]int32
	for _, l := range links {
		if in[l[0]] && in[l[1]] {
			out = append(out, l)
		}
	}
	return out
}

// embedCurrent embeds docs with the current weights as validation does:
// through the trainer's cache when training keeps one (embedCached), else
// each through its links to the training documents (embedTrain).
func (t *Trainer) embedCurrent(docs []int32) *model.Embeddings {
	if t.cache != nil {
		return t.embedCached(docs)
	}
	return t.embedTrain(docs)
}

// embedTrain embeds docs with the current weights, each through its links
// to the training documents outside validation (validation and test links
// stay unseen).
func (t *Trainer) embedTrain(docs []int32) *model.Embeddings {
	return t.Model.Embed(t.In, docs, t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
}

// embedCached embeds docs (the validation split's, or its sample's)
// through the trainer's cache. Unless the cache is fresh it refreshes it
// first: over every training document when t.vs is H itself, exactly as
// the next epoch would, so the cache is then fresh and that epoch skips
// its refresh; over the rows docs read when t.vs is a sample (the next
// epoch refreshes what it reads itself).
func (t *Trainer) embedCached(docs []int32) *model.Embeddings {
	m := t.Model
	if !t.cacheFresh {
		if t.vs == t.H {
			m.RefreshNeighbors(t.cache, t.In, t.H.Train, t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
			t.cacheFresh = true
		} else {
			m.RefreshNeighbors(t.cache, t.In, model.ReadBy(docs, t.trainNeighbors, t.Opt.MaxNbrs), t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
		}
	}
	return m.EmbedCached(t.In, docs, t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch, t.cache)
}

// validate scores the epoch on the held-out validation documents, keeps
// the best state, and (when grow) updates the topic tree.
func (t *Trainer) validate(rec *EpochLog, grow bool) error {
	stop := t.Env.Phases.Start("validation")
	emb := t.scoreValidation(rec)
	if t.Opt.Select != SelectLast {
		t.keepBest(rec)
	}
	stop()
	if !grow {
		return nil
	}
	defer t.Env.Phases.Start("growth")()
	return t.growTree(emb, true)
}

// scoreValidation embeds the training documents outside validation and the
// validation documents, each through its links to the former (H's
// neighbours), and scores the validation documents as the test documents
// are scored on S afterwards: kNN Micro-/Macro-F1 against the other
// training documents, the supervised head, link AUC over the held-out
// links among validation documents, and the perplexity exponent. It returns
// the embeddings, indexed by document id (rows of documents outside H are
// zero). With the cache nesting it embeds through the trainer's cache,
// refreshed exactly as the next epoch would refresh it, so that epoch
// reuses it.
func (t *Trainer) scoreValidation(rec *EpochLog) *model.Embeddings {
	m := t.Model
	vs := t.vs
	docs := slices.Concat(vs.Train, vs.Test)
	slices.Sort(docs)
	emb := t.embedCurrent(docs).Scatter(docs, t.G.NumDocs())
	rec.LevelShare = t.levelShare(emb)
	if p := t.Env.Planted; len(p) == t.G.NumDocs() {
		if nmi := evaluate.Recovery(m, emb, p, vs.Train); !math.IsNaN(nmi) {
			rec.ValidRecovery = &nmi
		}
	}
	if len(vs.Test) == 0 {
		return emb
	}
	v := evaluate.Score(m, t.G, vs, emb, metrics.DefaultK)
	t.diagnose(rec, emb)
	rec.ValidF1, rec.ValidMacroF1, rec.ValidSupF1 = v.KNNMicroF1, v.KNNMacroF1, v.SupMicroF1
	rec.ValidAUC, rec.ValidLogPerp = v.LinkAUC, v.LogPerplexity
	for half := range 2 {
		hv := evaluate.Score(m, t.G, t.validHalf(half), emb, metrics.DefaultK)
		rec.ValidHalves = append(rec.ValidHalves, HalfScore{KNNMicroF1: hv.KNNMicroF1, LinkAUC: hv.LinkAUC})
	}
	return emb
}

// diagnose fills rec's diagnostics (ValidRadius, ValidTangentKNN) from
// the validation split's embeddings emb (indexed by document; vs, the
// holdout or its sample).
func (t *Trainer) diagnose(rec *EpochLog, emb *model.Embeddings) {
	n := emb.Width
	var sum float64
	for _, d := range t.vs.Test {
		var ss float64
		for _, v := range emb.Tangent[int(d)*n : int(d+1)*n] {
			ss += float64(v) * float64(v)
		}
		sum += math.Sqrt(ss)
	}
	if len(t.vs.Test) > 0 {
		rec.ValidRadius = sum / float64(len(t.vs.Test))
	}
	if t.G.Labels == nil || len(t.vs.Test) == 0 {
		return
	}
	rowsOf := func(docs []int32) ([]float32, []int32) {
		x := make([]float32, 0, len(docs)*n)
		y := make([]int32, len(docs))
		for i, d := range docs {
			x = append(x, emb.Tangent[int(d)*n:int(d+1)*n]...)
			y[i] = t.G.Labels[d]
		}
		return x, y
	}
	xTr, yTr := rowsOf(t.vs.Train)
	xTe, yTe := rowsOf(t.vs.Test)
	f1 := metrics.MicroF1(yTe, metrics.KNN(xTr, yTr, xTe, n, metrics.DefaultK))
	rec.ValidTangentKNN = &f1
}

// HoldoutEmbeddings embeds, with the current weights, the training
// documents outside validation and the validation documents, each through
// its links to the former (as scoreValidation does), indexed by document id
// (other rows zero). It reads nothing of the test split.
func (t *Trainer) HoldoutEmbeddings() *model.Embeddings {
	docs := slices.Concat(t.H.Train, t.H.Test)
	slices.Sort(docs)
	return t.embedTrain(docs).Scatter(docs, t.G.NumDocs())
}

// HalfScore is the validation kNN Micro-F1 and link AUC of one half of the
// validation documents.
type HalfScore struct {
	KNNMicroF1 *float64 `json:"knn_micro_f1,omitempty"`
	LinkAUC    *float64 `json:"link_auc,omitempty"`
}

// validHalf returns the validation split (vs) with its test side (the
// validation documents) reduced to those at even (half 0) or odd (half 1)
// positions, and the held-out links to those among them.
func (t *Trainer) validHalf(half int) *corpus.Split {
	h := *t.vs
	h.Test, h.TestLinks = nil, nil
	in := make(map[int32]bool)
	for i, d := range t.vs.Test {
		if i%2 == half {
			h.Test = append(h.Test, d)
			in[d] = true
		}
	}
	for _, l := range t.vs.TestLinks {
		if in[l[0]] && in[l[1]] {
			h.TestLinks = append(h.TestLinks, l)
		}
	}
	return &h
}

// levelShare is EpochLog.LevelShare from embeddings indexed by document.
func (t *Trainer) levelShare(emb *model.Embeddings) []float64 {
	tab := t.Model.Topics.Tables()
	share := make([]float64, tab.Depth)
	var total float64
	for _, d := range t.vs.Train {
		l := float64(t.In.Len[d])
		for r, v := range emb.Theta[int(d)*emb.Topics : int(d+1)*emb.Topics] {
			share[tab.Level[r]] += l * float64(v)
		}
		total += l
	}
	for h := range share {
		share[h] /= max(total, 1)
	}
	return share
}

// keepBest keeps the state that maximises the validation score (Score),
// or, without validation metrics, minimises the training loss.
func (t *Trainer) keepBest(rec *EpochLog) {
	score, ok := rec.Score()
	if !ok {
		score = -rec.Total
	}
	if t.State.BestEpoch == 0 || score > t.State.BestScore {
		t.State.BestScore = score
		t.State.BestEpoch = t.State.Epoch
		t.best = t.snapshotParams()
	}
}

// Kept returns the epoch of the state Run left the model in and that
// epoch's validation metrics (nil when it was not validated).
func (t *Trainer) Kept() (epoch int, valid *evaluate.Test) {
	epoch = t.State.Epoch
	if t.best != nil {
		epoch = t.State.BestEpoch
	}
	for _, h := range t.History {
		if h.Epoch == epoch && (h.ValidF1 != nil || h.ValidAUC != nil) {
			return epoch, &evaluate.Test{KNNMicroF1: h.ValidF1, KNNMacroF1: h.ValidMacroF1,
				SupMicroF1: h.ValidSupF1, LinkAUC: h.ValidAUC, LogPerplexity: h.ValidLogPerp}
		}
	}
	return epoch, nil
}

// Score is the validation score that selects the kept state: the mean of
// the validation metrics present, kNN Micro-F1, link AUC and, for
// supervised runs, the head's Micro-F1, all in percent (a saturated F1 on
// an easy corpus then still lets AUC decide). ok is false without any.
func (r *EpochLog) Score() (score float64, ok bool) {
	var sum float64
	var cnt int
	for _, v := range []*float64{r.ValidF1, r.ValidAUC, r.ValidSupF1} {
		if v != nil {
			sum += *v
			cnt++
		}
	}
	if cnt == 0 {
		return 0, false
	}
	return sum / float64(cnt), true
}

func (t *Trainer) logEpoch(r *EpochLog) {
	line := fmt.Sprintf("epoch %d/%d  loss %.4f (graph %.4f topic %.4f", r.Epoch, t.Opt.Epochs, r.Total, r.Graph, r.Topic)
	if t.Model.Cfg.Supervised {
		line += fmt.Sprintf(" sup %.4f", r.Sup)
	}
	if r.Level != 0 {
		line += fmt.Sprintf(" level %.4f", r.Level)
	}
	if r.Branch != 0 {
		line += fmt.Sprintf(" branch %.4f", r.Branch)
	}
	if r.Div != 0 {
		line += fmt.Sprintf(" overlap %.4f", r.Div)
	}
	line += fmt.Sprintf(")  topics %d  %.0f docs/s  %.1fs", r.Topics, r.DocsPerSec, r.Seconds)
	if r.ValidF1 != nil {
		line += fmt.Sprintf("  valid kNN Micro-F1 %.2f", *r.ValidF1)
	}
	if r.ValidSupF1 != nil {
		line += fmt.Sprintf("  valid supervised Micro-F1 %.2f", *r.ValidSupF1)
	}
	if r.ValidAUC != nil {
		line += fmt.Sprintf("  valid link AUC %.2f", *r.ValidAUC)
	}
	if r.LevelShare != nil {
		line += fmt.Sprintf("  level share %.2f", r.LevelShare)
	}
	fmt.Fprintln(t.log, line)
}
