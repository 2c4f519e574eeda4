package topicfit

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/optim"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// ErrDiverged is wrapped by a fit whose loss became NaN or infinite.
var ErrDiverged = errors.New("the fit diverged")

// Options configure Fit.
type Options struct {
	Steps int     // Adam steps
	LR    float64 // learning rate of the topic side
	// DecoderLRScale multiplies LR for the decoder rows U (0 means 1).
	DecoderLRScale float64
	Batch          int    // documents per step (0 or ≥ len(docs): all)
	Seed           uint64 // order of the mini-batches
	// DecoderOnly trains the decoder rows U alone, the topic points held
	// where they are (after Place: at the documents' clusters).
	// Fitting the topic points too moves them away from their documents,
	// which fits the words through U's geometry rather than through
	// the documents (docs/design.md, "Topic start").
	DecoderOnly bool
}

// Fit fits the topic side alone (tree inputs, Doubly-RNN, level RNN and
// decoder U) to fixed document points: it minimises the per-token
// reconstruction NLL of docs' bags of words from θ(d_i) β with Adam, the
// documents' tangent vectors tangent (len(docs), n) held still. It returns
// the mean NLL of the last step's batch.
//
// Why: when the whole model trains from scratch, the topic points and
// decoder start unrelated to where the documents are, and the graph loss
// moves the documents faster than the topics can follow; the first path to
// catch mass keeps it (docs/design.md, "Topic start"). Fitted first
// to the documents' initial embeddings, the topics start where the
// documents' words say they should be.
//
// It uses an optimiser of its own, so the training optimiser's moments are
// untouched; the tree's structure is not changed.
func Fit(m *model.Model, tangent []float32, in *model.Inputs, docs []int32, f Options) (float64, error) {
	n := m.Cfg.Width
	if len(tangent) != len(docs)*n {
		return 0, fmt.Errorf("topicfit: fit: %d tangent values for %d documents of width %d", len(tangent), len(docs), n)
	}
	if f.Steps < 0 || !(f.LR > 0) || math.IsInf(f.LR, 0) || f.DecoderLRScale < 0 || f.Batch < 0 {
		return 0, fmt.Errorf("topicfit: fit: bad options %+v", f)
	}
	if m.Cfg.LambdaTopic == 0 || len(docs) == 0 || f.Steps == 0 {
		return math.NaN(), nil
	}
	scale := f.DecoderLRScale
	if scale == 0 {
		scale = 1
	}
	cfg := optim.DefaultConfig()
	cfg.LRScale = model.DecoderLRScale(scale)
	opt := optim.NewAdamW(cfg)
	all := m.Topics.Params()
	for _, p := range all {
		p.ZeroGrad()
	}
	ps := all
	if f.DecoderOnly {
		ps = []*tensor.Tensor{m.Topics.U}
	}
	for _, p := range ps {
		if err := opt.Add(p); err != nil {
			return 0, fmt.Errorf("topicfit: fit: %w", err)
		}
	}
	B := f.Batch
	if B == 0 || B > len(docs) {
		B = len(docs)
	}
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(f.Seed, 0x746f70696366))
	// Decoder-only, the topic points z and every document's θ are frozen
	// (they depend on the tree's parameters, σ and the fixed tangents,
	// none of which the fit changes): computed once here instead of at
	// every step, with the backward pass reaching U alone.
	var frozen *frozenTopics
	if f.DecoderOnly && freezeDecoderOnly {
		frozen = freeze(m, tangent)
	}
	tp := tensor.NewTape()
	var nll float64
	pos := len(order) // reshuffle on the first step
	sub := make([]int32, B)
	for s := 0; s < f.Steps; s++ {
		if pos+B > len(order) {
			if B < len(order) {
				rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			}
			pos = 0
		}
		rows := order[pos : pos+B]
		pos += B
		tp.Reset()
		for i, r := range rows {
			sub[i] = docs[r]
		}
		var z, theta *tensor.Tensor
		if frozen != nil {
			z = frozen.z
			theta = tp.Alloc(false, B, frozen.T)
			for i, r := range rows {
				copy(theta.Data[i*frozen.T:(i+1)*frozen.T], frozen.theta[r*frozen.T:(r+1)*frozen.T])
			}
		} else {
			d := tp.Alloc(false, B, n)
			for i, r := range rows {
				copy(d.Data[i*n:(i+1)*n], tangent[r*n:(r+1)*n])
			}
			var zh *tensor.Tensor
			z, zh = m.Topics.Embeddings(tp)
			theta = m.Topics.Theta(tp, m.M.ExpO(tp, d), z, zh)
		}
		ptr, word, count := in.SubsetBoW(sub)
		loss := model.BowNLL(tp, m.Topics.WordProbs(tp, theta, m.Topics.Beta(tp, z)), ptr, word, count)
		nll = float64(loss.Data[0])
		if math.IsNaN(nll) || math.IsInf(nll, 0) {
			return 0, fmt.Errorf("topicfit: fit: step %d: topic loss is %v: %w", s+1, nll, ErrDiverged)
		}
		tp.Backward(loss)
		opt.Step(f.LR)
		// Every topic parameter that received gradient, trained or not,
		// must not carry it into the next step, nor into the caller's
		// training.
		for _, p := range all {
			p.ZeroGrad()
		}
	}
	return nll, nil
}

// frozenTopics are the topic points z (T,n+1), without gradient, and the
// θ (N,T) of the documents whose tangents were given, row-aligned.
type frozenTopics struct {
	z     *tensor.Tensor
	theta []float32
	T     int
}

// freezeDecoderOnly turns the freezing on; the test that compares it with
// recomputing z and θ at every step turns it off.
var freezeDecoderOnly = true

// freezeBatch bounds the documents whose θ is computed at once (the tape
// holds a few (rows, n) tensors).
const freezeBatch = 4096

func freeze(m *model.Model, tangent []float32) *frozenTopics {
	n := m.Cfg.Width
	N := len(tangent) / n
	tp := tensor.NewTape()
	tp.NoGrad = true
	f := &frozenTopics{}
	for lo := 0; lo < N; lo += freezeBatch {
		hi := min(lo+freezeBatch, N)
		tp.Reset()
		z, zh := m.Topics.Embeddings(tp)
		if f.z == nil {
			f.z = tensor.FromData(slices.Clone(z.Data), slices.Clone(z.Shape)...)
			f.T = z.Rows()
			f.theta = make([]float32, N*f.T)
		}
		d := tp.Alloc(false, hi-lo, n)
		copy(d.Data, tangent[lo*n:hi*n])
		copy(f.theta[lo*f.T:], m.Topics.Theta(tp, m.M.ExpO(tp, d), z, zh).Data)
	}
	return f
}

// Calibrate sets the Fermi-Dirac radius r and temperature t of
// σ = 1/(1+exp((d²−r)/t)) from the documents' squared distances to the leaf
// topics (tangent: (N, n) log_o of the document points): with a the median
// over documents of the squared distance to the nearest leaf and b the
// median over all document-leaf pairs, r = (a+b)/2 and
// t = (b−a) / (2 logit q), so that a document at the typical distance from
// its own topic has σ = q and at the typical distance from the others
// σ = 1 − q, with q the contrast Cfg.Tree.FDContrast (default
// 1/(1+e⁻³) ≈ 0.953: t = (b−a)/6). It writes r and t into Cfg.Tree (so they are saved) and
// returns them.
//
// Why: the paper's σ = 1/(1+exp(d²)) is a fixed function of distance, but
// how far apart documents are depends on the corpus, the width and the
// encoder's scale. At the start of training on the built-in corpus every
// document is within d² ≈ 0.7-1.7 of every leaf, where the paper's σ only
// ranges over 0.15-0.33: every topic is about equally similar to every
// document, and stick-breaking sends the mass down the last path.
//
// With fewer than two leaves, or documents equally far from every leaf,
// there is nothing to calibrate against and it changes nothing.
func Calibrate(m *model.Model, tangent []float32) (r, t float64) {
	n := m.Cfg.Width
	N := len(tangent) / n
	r, t = m.Cfg.Tree.FDRadius, m.Cfg.Tree.FDTemp
	if N == 0 {
		return r, t
	}
	tp := tensor.NewTape()
	tp.NoGrad = true
	d := tp.Alloc(false, N, n)
	copy(d.Data, tangent[:N*n])
	z, _ := m.Topics.Embeddings(tp)
	if br, bt, ok := calibration(m.Topics.Tables(), m.M.PairSqDist(tp, m.M.ExpO(tp, d), z), m.Cfg.Tree.ContrastLogit()); ok {
		r, t = br, bt
		m.SetSimilarity(r, t)
	}
	return r, t
}

// Track moves r and t a step of Cfg.Tree.FDTrack towards the calibration of
// the document points (B,n+1) against the topics z (T,n+1), as they were in
// a training step's forward pass (model.Parts.Out): the trainer calls it
// after each step.
func Track(m *model.Model, points, z *tensor.Tensor) {
	mu := m.Cfg.Tree.FDTrack
	if mu <= 0 {
		return
	}
	tp := tensor.NewTape()
	tp.NoGrad = true
	br, bt, ok := calibration(m.Topics.Tables(), m.M.PairSqDist(tp, points, z), m.Cfg.Tree.ContrastLogit())
	if !ok {
		return
	}
	r, t := m.Topics.Similarity()
	m.SetSimilarity((1-mu)*r+mu*br, (1-mu)*t+mu*bt)
}

// calibration computes r = (a+b)/2 and t = (b−a)/(2 logit q) from squared distances
// sq (N,T) of documents to the topics in dense row order: a is the median
// over documents of the distance to the nearest leaf, b the median over
// all document-leaf pairs. ok is false when there is nothing to calibrate
// against (fewer than two leaves, or every leaf equally far).
func calibration(tab *topictree.Tables, sq *tensor.Tensor, logitQ float64) (r, temp float64, ok bool) {
	leaves := tab.Leaf
	N, T := sq.Rows(), sq.Cols()
	if N == 0 || len(leaves) < 2 {
		return 0, 0, false
	}
	nearest := make([]float64, N)
	all := make([]float64, 0, N*len(leaves))
	for i := range nearest {
		nearest[i] = math.Inf(1)
		for _, l := range leaves {
			v := float64(sq.Data[i*T+int(l)])
			all = append(all, v)
			nearest[i] = min(nearest[i], v)
		}
	}
	a, b := median(nearest), median(all)
	if !(b > a) || math.IsInf(b, 0) || math.IsNaN(a) {
		return 0, 0, false
	}
	return (a + b) / 2, (b - a) / (2 * logitQ), true
}

// median returns the median of x (reordering it).
func median(x []float64) float64 {
	slices.Sort(x)
	h := len(x) / 2
	if len(x)%2 == 1 {
		return x[h]
	}
	return (x[h-1] + x[h]) / 2
}
