package bench

import (
	"fmt"
	"slices"
	"time"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/corpus/synth"
	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/optim"
	"github.com/gtformer/gtformer/tensor"
)

// ModelSetup shapes the whole-model measurement: a synthetic corpus and one
// fixed training batch on it.
type ModelSetup struct {
	Docs       int // documents in the corpus (all of them are embedded)
	Vocab      int
	MeanLength int // mean raw document length (log-normal, see synth)
	Degree     int // mean number of links per document
	BatchLinks int // positive links per step (the trainer's --batch)
	MaxNbrs    int // neighbours a document aggregates at inference (the trainer's default)
	EmbedBatch int // documents per inference batch (the trainer's default)
	NewDocs    int // new documents embedded into the corpus per call (as by embed --new)
	Seed       uint64
}

// DefaultModelSetup is shaped like the Cora ML corpus with the trainer's
// defaults: 1,024 documents, 3,000 words, a mean kept length of about 59
// of 96 tokens (ML's is 59.8) and a mean degree of about 5.6 (ML: 5.55);
// 32 links (up to 64 centres) per step; 128 new documents (one inference
// batch) embedded into it at a time.
var DefaultModelSetup = ModelSetup{Docs: 1024, Vocab: 3000, MeanLength: 66, Degree: 6, BatchLinks: 32, MaxNbrs: 64, EmbedBatch: 128, NewDocs: 128, Seed: 1}

// ModelBench holds a model, its inputs, a fixed batch and a refreshed
// neighbour cache, ready to step and embed.
type ModelBench struct {
	Setup ModelSetup
	Model *model.Model
	Graph *corpus.Graph
	In    *model.Inputs
	Batch *model.Batch
	Cache *model.Cache
	Shape StepShape // the batch's shape, for ModelStepFLOPs
	// Known is the corpus prepared for new documents (its hop features
	// propagated once, as a server does), New the documents Embed embeds.
	Known *model.KnownCorpus
	New   *corpus.NewDocs

	opt  *optim.Adam
	tape *tensor.Tape
	docs []int32
}

// check reports a setup NewModelBench cannot build.
func (s ModelSetup) check() error {
	if s.NewDocs < 1 {
		return fmt.Errorf("bench: %d new documents to embed, want at least 1", s.NewDocs)
	}
	return nil
}

// NewModelBench builds cfg (Vocab and NumLabels are set from the corpus)
// on a synthetic corpus drawn from s, a training batch of s.BatchLinks
// links, and fills the neighbour cache as an epoch start would
// (RefreshNeighbors over every document). Step reads the neighbours from
// the cache, as the trainer's default nesting does.
func NewModelBench(cfg model.Config, s ModelSetup) (*ModelBench, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	sc := synth.Default()
	sc.Docs, sc.Vocab, sc.MeanLength, sc.Seed = s.Docs, s.Vocab, s.MeanLength, s.Seed
	sc.Links = s.Docs * s.Degree / 2
	g, _, err := synth.Generate(sc)
	if err != nil {
		return nil, fmt.Errorf("bench: corpus: %w", err)
	}
	cfg.Vocab = len(g.Vocab)
	cfg.NumLabels = g.NumLabels()
	m, err := model.New(cfg, s.Seed)
	if err != nil {
		return nil, err
	}
	docs := make([]int32, g.NumDocs())
	for i := range docs {
		docs[i] = int32(i)
	}
	nbrs := func(d int32) []int32 { return g.Neighbors(int(d)) }
	m.IDF = model.IDF(g, docs)
	in := model.NewInputs(g, m.IDF, cfg.MaxLen, cfg.Truncate)
	if err := m.FitFeatures(in, docs, s.Seed); err != nil {
		return nil, err
	}
	m.PropagateFeatures(in, nbrs)
	b := &ModelBench{Setup: s, Model: m, Graph: g, In: in, tape: tensor.NewTape(), docs: docs}
	b.Known, b.New = m.NewKnownCorpus(g), newDocs(g, s.NewDocs)
	b.Batch = linkBatch(g, cfg, s)
	b.Shape = shapeOf(m, in, b.Batch)
	if cfg.Layers > 1 && !cfg.NoGraph {
		b.Cache = m.NewCache(g.NumDocs())
		m.RefreshNeighbors(b.Cache, in, docs, nbrs, s.MaxNbrs, s.EmbedBatch)
	}
	b.opt = optim.NewAdamW(optim.DefaultConfig())
	for _, p := range m.Params() {
		if err := b.opt.Add(p); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// linkBatch takes s.BatchLinks links spread evenly over the graph's link
// list and builds the trainer's batch from them (model.LinkBatch), with each
// centre's k neighbours sampled from the graph (as an epoch's neighbour
// table) and, for a supervised model, every centre's label.
func linkBatch(g *corpus.Graph, cfg model.Config, s ModelSetup) *model.Batch {
	n := min(s.BatchLinks, len(g.Links))
	links := make([][2]int32, n)
	for i := range n {
		links[i] = g.Links[i*len(g.Links)/n]
	}
	k := cfg.Neighbors
	table := corpus.NewCSRSampler(g.AdjPtr, g.AdjIdx, k, s.Seed).Resample(0)
	b := model.LinkBatch(links, table, k, func(d int32) []int32 { return g.Neighbors(int(d)) })
	if cfg.Supervised {
		b.Labels = make([]int32, len(b.Centres))
		for i, d := range b.Centres {
			b.Labels[i] = g.Labels[d]
		}
	}
	return b
}

// Step runs one training step as the trainer does: gradients zeroed, the
// loss's forward and backward pass, clipping and an AdamW update (at a
// small learning rate, so that repeated steps on the same batch stay
// finite).
func (b *ModelBench) Step() error {
	for _, p := range b.Model.Params() {
		p.ZeroGrad()
	}
	b.tape.Reset()
	loss, _, err := b.Model.Loss(b.tape, b.In, b.Batch, b.Cache)
	if err != nil {
		return err
	}
	b.tape.Backward(loss)
	b.opt.ClipGradNorm(1)
	b.opt.Step(1e-5)
	return nil
}

// Embed embeds the setup's new documents into the corpus as `gtformer
// embed --new` and POST /v1/embed do (Model.EmbedNewIn against the
// prepared corpus: the graph extended by them, the hop features of what
// they reach propagated, and with two hops each neighbour re-encoded over
// its own neighbours first).
func (b *ModelBench) Embed() *model.Embeddings {
	return b.Model.EmbedNewIn(b.Known, b.New, b.Setup.MaxNbrs, b.Setup.EmbedBatch)
}

// newDocs returns n new documents against g: the i-th has the words of
// corpus document i·7 mod N and links to that document's neighbours (so it
// sits where a document like it would), and every fourth also links to the
// new document before it.
func newDocs(g *corpus.Graph, n int) *corpus.NewDocs {
	nd := &corpus.NewDocs{}
	N := int32(g.NumDocs())
	for i := range int32(n) {
		src := i * 7 % N
		nd.IDs = append(nd.IDs, fmt.Sprintf("new%d", i))
		nd.Tokens = append(nd.Tokens, slices.Clone(g.Doc(int(src))))
		for _, c := range g.Neighbors(int(src)) {
			nd.Links = append(nd.Links, [2]int32{N + i, c})
		}
		if i%4 == 3 {
			nd.Links = append(nd.Links, [2]int32{N + i, N + i - 1})
		}
	}
	return nd
}

// StepShape is what the FLOP count of a training step depends on.
type StepShape struct {
	Width, Layers, MLPHidden int
	Lens                     []int // kept word tokens of each centre ([CLS] not counted)
	K                        int   // neighbour slots per centre
	Extras                   int   // rows prepended to keys/values in layers 2..L (tree and graph tokens)
	Graph, Tree              bool  // graph attention and tree embedding feed layers 2..L
	Anchors                  int   // contrastive anchors
	Topics, Levels, Vocab    int   // T, the level points H, V
	BagNNZ                   int   // non-zeros of the centres' tf-idf rows (the [CLS] bag)
	HopWidth                 int   // width of the hop features (0: none)
	HopSkip                  bool
	TopicLoss                bool
	SupHidden, Labels        int // supervised head (0: none)
}

func shapeOf(m *model.Model, in *model.Inputs, b *model.Batch) StepShape {
	cfg := m.Cfg
	tab := m.Topics.Tables()
	s := StepShape{Width: cfg.Width, Layers: cfg.Layers, MLPHidden: cfg.MLPHidden, K: b.Nbrs.K,
		Graph: !cfg.NoGraph, Tree: !cfg.NoTree, Anchors: len(b.Anchors),
		Topics: tab.T, Levels: m.Topics.Levels, Vocab: cfg.Vocab,
		HopSkip: cfg.FeatureSkip, TopicLoss: cfg.LambdaTopic > 0}
	if s.Graph {
		s.Extras++
	}
	if s.Tree {
		s.Extras++
	}
	for _, d := range b.Centres {
		s.Lens = append(s.Lens, len(in.Tokens(int(d))))
		if m.Feat != nil {
			s.BagNNZ += int(in.BowPtr[d+1] - in.BowPtr[d])
		}
	}
	if cfg.FeatureHops > 0 {
		s.HopWidth = in.HopWidth
	}
	if cfg.Supervised && cfg.LambdaSup > 0 {
		s.SupHidden, s.Labels = cfg.SupHidden, cfg.NumLabels
	}
	return s
}

// ModelStepFLOPs counts the floating-point operations of one training step
// of shape s: matrix products only, 2·m·n·k each (as bench's layer count and
// PyTorch's profiler do), counting only the work the step needs — each
// document's own tokens (no padding), and of the last layer only what its
// [CLS] reads — so that a faster implementation of the same model shows as
// a higher rate, not as more counted work. Backward is counted as twice
// forward (an input and a weight gradient per product), the usual
// convention, so a step is 3× forward.
//
// Forward, with B centres, r_b = 1 + len_b token rows of centre b
// ([CLS] included), R = Σ r_b, n the width, F the MLP width, P the rows
// prepended to keys and values in layers 2..L (tree and graph tokens):
//
//	[CLS] start: tf-idf bag 2·nnz·n; hop features 2·B·W·n (and the skip, again)
//	a layer with queries from every token:
//	    Q, O 2·2·R·n²;  K, V 2·2·(R+B·P)·n²;  attention 2·2·Σ r_b(r_b+P)·n;  MLP 2·2·R·n·F
//	the last layer (queries from [CLS] only):
//	    Q, O 2·2·B·n²;  K, V 2·2·(R+B·P)·n²;  attention 2·2·Σ (r_b+P)·n;   MLP 2·2·B·n·F
//	before each of layers 2..L:
//	    [CLS] to tangent 2·B·n²
//	    tree: distances to topics and level points 2·B·(T+H)·(n+1), e = θ·log z 2·B·T·n
//	    graph: neighbours to tangent 2·B·k·n², W on centres and neighbours 2·B·(1+k)·n²,
//	           query 2·B·n², keys 2·B·k·n², scores and sum 2·2·B·k·n
//	final point: 2·B·n², θ 2·B·(T+H)·(n+1)
//	losses: contrastive distances 2·A·B·(n+1); topic β 2·T·n·V and θβ 2·B·T·V;
//	        supervised 2·B·n·S + 2·B·S·labels
//
// P is 0 for layer 1 (the plain layer). Left out: the topic tree's own
// recurrences (O(T·n²), under 0.5% of a default step), the Lorentz maps,
// norms, activations, softmax and the optimiser (element-wise).
func ModelStepFLOPs(s StepShape) float64 {
	n, F := float64(s.Width), float64(s.MLPHidden)
	B := float64(len(s.Lens))
	var R float64
	for _, l := range s.Lens {
		R += float64(1 + l)
	}
	T, H, V := float64(s.Topics), float64(s.Levels), float64(s.Vocab)
	k := float64(s.K)
	fwd := 2 * float64(s.BagNNZ) * n
	if s.HopWidth > 0 {
		fwd += 2 * B * float64(s.HopWidth) * n
		if s.HopSkip {
			fwd += 2 * B * float64(s.HopWidth) * n
		}
	}
	for l := 0; l < s.Layers; l++ {
		P := 0.0
		if l > 0 {
			P = float64(s.Extras)
		}
		var pairs float64
		last := l == s.Layers-1
		for _, ln := range s.Lens {
			r := float64(1 + ln)
			if last {
				pairs += r + P
			} else {
				pairs += r * (r + P)
			}
		}
		q := R // query rows
		if last {
			q = B
		}
		fwd += 2*2*q*n*n + 2*2*(R+B*P)*n*n + 2*2*pairs*n + 2*2*q*n*F
		if l == 0 || (!s.Tree && !s.Graph) {
			continue
		}
		fwd += 2 * B * n * n
		if s.Tree {
			fwd += 2*B*(T+H)*(n+1) + 2*B*T*n
		}
		if s.Graph {
			fwd += 2*B*k*n*n + 2*B*(1+k)*n*n + 2*B*n*n + 2*B*k*n*n + 2*2*B*k*n
		}
	}
	fwd += 2*B*n*n + 2*B*(T+H)*(n+1)
	fwd += 2 * float64(s.Anchors) * B * (n + 1)
	if s.TopicLoss {
		fwd += 2*T*n*V + 2*B*T*V
	}
	if s.SupHidden > 0 {
		fwd += 2*B*n*float64(s.SupHidden) + 2*B*float64(s.SupHidden)*float64(s.Labels)
	}
	return 3 * fwd
}

// ModelResult is the whole-model measurement.
type ModelResult struct {
	StepDocsPerSec float64 // centre documents per second of training steps
	StepGFLOPS     float64 // ModelStepFLOPs per second
	EmbedDocsPerS  float64 // new documents per second of Embed (embed --new)
	StepFLOPs      float64
	Centres        int
}

// Model measures the default model's training step and embedding on the
// setup's corpus: cfg's step (best of the runs) as documents/s and GFLOP/s,
// and Embed of the setup's new documents (best of the runs) as new
// documents/s.
func Model(cfg model.Config, s ModelSetup, minRuns int, minTime time.Duration) (ModelResult, error) {
	return modelRun(cfg, s, minRuns, minTime, wallClock)
}

// modelRun is Model with its times read from now.
func modelRun(cfg model.Config, s ModelSetup, minRuns int, minTime time.Duration, now clock) (ModelResult, error) {
	b, err := NewModelBench(cfg, s)
	if err != nil {
		return ModelResult{}, err
	}
	var stepErr error
	step := func() {
		if err := b.Step(); err != nil && stepErr == nil {
			stepErr = err
		}
	}
	step() // warm up the arena
	d := interleaved(1, func(int) { step() }, minRuns, minTime, now)[0]
	if stepErr != nil {
		return ModelResult{}, stepErr
	}
	r := ModelResult{StepFLOPs: ModelStepFLOPs(b.Shape), Centres: len(b.Batch.Centres)}
	r.StepDocsPerSec = float64(r.Centres) / d.Seconds()
	r.StepGFLOPS = r.StepFLOPs / d.Seconds() / 1e9
	e := interleaved(1, func(int) { b.Embed() }, minRuns, minTime, now)[0]
	r.EmbedDocsPerS = float64(len(b.New.IDs)) / e.Seconds()
	return r, nil
}
