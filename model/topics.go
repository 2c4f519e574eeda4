package model

import (
	"math"
	"math/rand/v2"

	"github.com/gtformer/gtformer/hnn"
	"github.com/gtformer/gtformer/lorentz"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// Topics is the topic side of the model: the tree, the Hyperbolic Doubly-RNN
// that embeds its topics, the level RNN, and the topic-word decoder U.
// Parameters are shared across topics, so growing or pruning the tree changes
// no parameter shape: a new topic's embedding follows from its parent's and
// left sibling's through the same recurrences.
type Topics struct {
	M    lorentz.Manifold
	Tree *topictree.Tree
	tab  *topictree.Tables

	RootIn     *tensor.Tensor // (1,n) tangent of the learned "parent" of the root
	LevelStart *tensor.Tensor // (1,n) tangent of the level chain's start point
	DRNN       *hnn.DRNN
	LevelRNN   *hnn.RNNCell
	U          *tensor.Tensor // (V,n) word embeddings of the decoder β = softmax(U log_o z / τ)
	// Input holds one learned tangent vector per topic (dense row order),
	// added inside the Doubly-RNN's combination (see cell). Without it a
	// topic's embedding is a fixed function of its position in the tree
	// through shared weights, and in practice topics of the same sibling
	// rank come out nearly identical under every parent, so every document
	// prefers the same path. It is the node input of the original
	// doubly-recurrent network (Alvarez-Melis & Jaakkola, 2017); the tree's
	// growth and pruning add and drop its rows, and the optimiser's state
	// follows them.
	Input *tensor.Tensor // (T,n)
	// Background, when set, is the log of the training documents' word
	// frequencies (V): β_t = softmax(bg + U·log_o z_t / τ_t). A topic is
	// then a deviation from the corpus's own word distribution (SAGE,
	// Eisenstein et al., 2011), and the depth temperature makes the root
	// (τ = 10) the corpus distribution itself, general words first, and
	// the leaves the sharpest deviations. Without it a flat topic is the
	// uniform distribution over the vocabulary, which explains no
	// document's words well, so the root is worth no mass.
	Background []float32
	// Mix, with TreeConfig.BackgroundMix > 0, is ρ (1): the weight
	// λ = sigmoid(ρ) of the background mixture component Unigram in every
	// document's word distribution (WordProbs); nil otherwise.
	Mix *tensor.Tensor
	// Unigram, with the background mixture, is the training documents'
	// smoothed unigram distribution b (V), the mixture's fixed component
	// (model.Unigram; the counts of Background's log frequencies).
	Unigram []float32
	Tau     float64
	// cfg is the model's tree configuration, the one owner of σ's radius
	// r and temperature t (FDRadius, FDTemp), which training moves
	// (Model.SetSimilarity) and config.json saves.
	cfg    *TreeConfig
	Levels int // H: columns of σ_level (the maximum depth)
}

// drnnGain scales the recurrences' initial weights (see newTopics).
const drnnGain = 1.0

// DecoderParam names the decoder's word rows U, which train with their own
// learning-rate scale (train.Options.DecoderLRScale).
const DecoderParam = "tree.decoder.u"

// MixParam names ρ, the background mixture's logit (Topics.Mix).
const MixParam = "tree.bg_mix"

// DecoderLRScale returns an optim.Config.LRScale that multiplies the
// decoder rows' (DecoderParam's) learning rate by scale and leaves the others.
func DecoderLRScale(scale float64) func(name string) float64 {
	return LRScales(map[string]float64{DecoderParam: scale})
}

// LRScales returns an optim.Config.LRScale that multiplies the learning
// rate of each named parameter by its scale and leaves the others.
func LRScales(scales map[string]float64) func(name string) float64 {
	return func(name string) float64 {
		if s, ok := scales[name]; ok {
			return s
		}
		return 1
	}
}

// SetSimilarity sets σ's radius r and temperature t (Cfg.Tree, their one
// owner, which the topic side reads).
func (m *Model) SetSimilarity(r, t float64) {
	m.Cfg.Tree.FDRadius, m.Cfg.Tree.FDTemp = r, t
}

// SetLevelSimilarity gives the level σ its own radius r and temperature t
// (t = 0: the path σ's serve both).
func (m *Model) SetLevelSimilarity(r, t float64) {
	m.Cfg.Tree.FDLevelRadius, m.Cfg.Tree.FDLevelTemp = r, t
}

// DecoderInitStd is the initial standard deviation of the decoder rows U:
// large, so that β starts distinct per topic. The price: at the shared
// learning rate U barely moves, and the topics' word distributions are
// learned mostly by moving the topic points. train's topic start therefore
// fits U alone, at a high rate, before the first step (topicfit.Fit), and
// trains U at 10× the shared rate afterwards (train.Options.DecoderLRScale),
// without which the decoder lags θ as the documents move (docs/design.md, "Choices beyond the paper").
const DecoderInitStd = 4

func newTopics(m lorentz.Manifold, cfg *Config, rng *rand.Rand) (*Topics, error) {
	n := cfg.Width
	tc := &cfg.Tree
	depth, branching := tc.InitDepth, tc.Branching
	maxDepth := tc.MaxDepth
	if tc.Mode == "flat" {
		depth, maxDepth = 2, 2
	}
	tree, err := topictree.New(depth, branching)
	if err != nil {
		return nil, err
	}
	if err := tree.SetLimits(topictree.Limits{MaxDepth: maxDepth, MaxChildren: tc.MaxChildren}); err != nil {
		return nil, err
	}
	t := &Topics{
		M: m, Tree: tree, tab: tree.Tables(),
		Input:      tensor.Param("tree.topic_in", tree.Len(), n),
		RootIn:     tensor.Param("tree.root_in", 1, n),
		LevelStart: tensor.Param("tree.level_start", 1, n),
		DRNN:       hnn.NewDRNN(m, "tree.drnn", n, rng),
		LevelRNN:   hnn.NewRNNCell(m, "tree.level_rnn", n, rng),
		U:          tensor.Param(DecoderParam, cfg.Vocab, n),
		Tau:        tc.Tau,
		cfg:        tc,
		Levels:     maxDepth,
	}
	if x := tc.BackgroundMix; x > 0 {
		t.Mix = mixParam(x)
	}
	// Start points at a moderate distance from the origin so that the
	// recurrences do not begin at the (symmetric) origin itself.
	for _, p := range []*tensor.Tensor{t.RootIn, t.LevelStart, t.Input} {
		for i := range p.Data {
			p.Data[i] = float32(rng.NormFloat64() / math.Sqrt(float64(n)))
		}
	}
	// The recurrences' default U(−1/√n, 1/√n) weights contract: every
	// topic lands within ≈0.5 of the origin and within 0.1-0.6 of each
	// other, so all topics are about equally similar to every document
	// (at distance ≈ 1 from the origin) and stick-breaking puts all mass on
	// the last leaf. A gain of 1.5 spreads the initial topics to radii ≈ 1
	// with pairwise distances ≈ 0.7-2.7 (measured at n = 128), the scale of
	// the documents; much larger gains saturate tanh and put topics ≈ 10
	// apart, where Fermi-Dirac similarities vanish.
	for _, p := range append(t.DRNN.Params(), t.LevelRNN.Params()...) {
		if len(p.Shape) == 2 {
			for i := range p.Data {
				p.Data[i] *= drnnGain
			}
		}
	}
	// Decoder rows N(0, DecoderInitStd²): logits U·log_o z then have spread
	// ≈ 4|log_o z| before the depth temperature.
	for i := range t.U.Data {
		t.U.Data[i] = float32(rng.NormFloat64() * DecoderInitStd)
	}
	return t, nil
}

// Params returns the topic side's parameters in a fixed order.
func (t *Topics) Params() []*tensor.Tensor {
	ps := []*tensor.Tensor{t.RootIn, t.LevelStart}
	ps = append(ps, t.DRNN.Params()...)
	ps = append(ps, t.LevelRNN.Params()...)
	ps = append(ps, t.U, t.Input)
	if t.Mix != nil {
		ps = append(ps, t.Mix)
	}
	return ps
}

// Tables returns the current tree tables.
func (t *Topics) Tables() *topictree.Tables { return t.tab }

// refresh rebuilds the tables after the tree changed, and gives Input the
// tree's number of rows if it differs (new rows zero; callers that keep
// per-topic values use Remap instead).
func (t *Topics) refresh() {
	t.tab = t.Tree.Tables()
	if r := t.Input.Shape[0]; r != t.tab.T {
		n := t.Input.Cols()
		in := tensor.Param(t.Input.Name, t.tab.T, n)
		copy(in.Data, t.Input.Data[:min(r, t.tab.T)*n])
		t.Input = in
	}
}

// Remap carries Input over a structural change of the tree: oldRow maps
// each new dense row to its old row, or −1 for an added topic, which starts
// from its parent's input plus small noise (so it begins near its parent and
// drifts away as it specialises). The tree must already be the new one. It
// returns the new tensor, which replaces Input (the optimiser must be told:
// RemapRows, then Rebind).
func (t *Topics) Remap(oldRow []int) *tensor.Tensor {
	t.tab = t.Tree.Tables()
	n := t.Input.Cols()
	in := tensor.Param(t.Input.Name, t.tab.T, n)
	for r, o := range oldRow {
		if o >= 0 {
			copy(in.Data[r*n:(r+1)*n], t.Input.Data[o*n:(o+1)*n])
		}
	}
	for r, o := range oldRow {
		if o >= 0 {
			continue
		}
		// Seeded by the topic's id, which is never reused: reproducible.
		rng := rand.New(rand.NewPCG(uint64(t.tab.ID[r]), 0x746f706963))
		p := int(t.tab.Parent[r])
		for j := 0; j < n; j++ {
			in.Data[r*n+j] = in.Data[p*n+j] + float32(rng.NormFloat64()*0.1/math.Sqrt(float64(n)))
		}
	}
	t.Input = in
	return in
}

// Embeddings runs the Doubly-RNN level by level and sibling rank by sibling
// rank (batched across parents), and the level chain. It returns the topic
// points Z (T,n+1) in dense row order and the level points Zh (H,n+1). They
// do not depend on the document, so one call serves a whole forward pass.
func (t *Topics) Embeddings(tp *tensor.Tape) (z, zh *tensor.Tensor) {
	tab := t.tab
	m := t.M
	n := t.RootIn.Cols()
	origin := m.Origin(tp, 1, n)
	root := t.cell(tp, m.ExpO(tp, t.RootIn), origin, []int32{0}) // (1,n+1)

	// Rows computed so far live in a growing list of blocks; pos maps a
	// topic row to its row in the concatenation [origin, root, steps...].
	blocks := []*tensor.Tensor{origin, root}
	pos := make([]int32, tab.T)
	pos[0] = 1
	next := int32(2)
	for _, st := range tab.DRNN {
		all := tp.Concat(0, blocks...)
		par := make([]int32, len(st.Rows))
		left := make([]int32, len(st.Rows))
		for i := range st.Rows {
			par[i] = pos[st.Parents[i]]
			if st.Left[i] >= 0 {
				left[i] = pos[st.Left[i]]
			} // else 0: the origin row
		}
		out := t.cell(tp, tp.Gather(all, par), tp.Gather(all, left), st.Rows)
		blocks = append(blocks, out)
		for _, r := range st.Rows {
			pos[r] = next
			next++
		}
	}
	z = tp.Gather(tp.Concat(0, blocks...), pos)

	levels := make([]*tensor.Tensor, t.Levels)
	prev := m.ExpO(tp, t.LevelStart)
	for h := range levels {
		prev = t.LevelRNN.Forward(tp, prev)
		levels[h] = prev
	}
	zh = tp.Concat(0, levels...)
	return z, zh
}

// cell is one batched Doubly-RNN step (Eq. 8) with the topics' inputs:
// z_t = f_tanh(exp_o(W·(log_o z_p + log_o z_s) + a_t)) for parent and
// left-sibling states zParent, zLeft (m,n+1) and a_t = Input[row t]; rows
// (m) are the topics' dense rows.
func (t *Topics) cell(tp *tensor.Tape, zParent, zLeft *tensor.Tensor, rows []int32) *tensor.Tensor {
	return t.DRNN.Forward(tp, zParent, zLeft, tp.Gather(t.Input, rows))
}

// Theta returns the documents' topic distributions θ (B,T) for document
// points d (B,n+1): σ(t,i) = 1/(1+exp((d(z_t, d_i)² − r)/t)) for topics and
// levels, then path and level stick-breaking.
func (t *Topics) Theta(tp *tensor.Tape, d, z, zh *tensor.Tensor) *tensor.Tensor {
	r, temp := t.Similarity()
	rh, th := t.LevelSimilarity()
	sT := hnn.FermiDiracRT(tp, t.M.PairSqDist(tp, d, z), r, temp)
	sH := hnn.FermiDiracRT(tp, t.M.PairSqDist(tp, d, zh), rh, th)
	return topictree.Theta(tp, t.tab, sT, sH)
}

// Similarity returns σ's radius r and temperature t, where a temperature
// of 0 (configs saved before it existed) means the paper's 1.
func (t *Topics) Similarity() (r, temp float64) {
	temp = t.cfg.FDTemp
	if temp == 0 {
		temp = 1
	}
	return t.cfg.FDRadius, temp
}

// LevelSimilarity returns the level σ's radius and temperature: its own
// (FDLevelRadius, FDLevelTemp) when set, else the path σ's.
func (t *Topics) LevelSimilarity() (r, temp float64) {
	if t.cfg.FDLevelTemp > 0 {
		return t.cfg.FDLevelRadius, t.cfg.FDLevelTemp
	}
	return t.Similarity()
}

// Beta returns the topic-word distributions β (T,V): row t is
// softmax(U log_o z_t / τ_t) with τ_t = τ^(1/(level+1)), so the root's
// distribution is the flattest and the leaves' the sharpest.
func (t *Topics) Beta(tp *tensor.Tape, z *tensor.Tensor) *tensor.Tensor {
	logits := tp.MatMul(t.M.LogO(tp, z), t.U, false, true) // (T,V)
	inv := tp.Alloc(false, t.tab.T)
	for r := range inv.Data {
		inv.Data[r] = float32(math.Pow(t.Tau, -1/float64(t.tab.Level[r]+1)))
	}
	logits = tp.MulCol(logits, inv)
	if t.Background != nil {
		logits = t.addBackground(tp, logits)
	}
	return tp.Softmax(logits, nil)
}

// addBackground adds w_level(t)·bg to each topic row of logits (T,V), with
// the level weights of TreeConfig.BackgroundWeight (1 at every level: the
// background of every topic).
func (t *Topics) addBackground(tp *tensor.Tape, logits *tensor.Tensor) *tensor.Tensor {
	v := len(t.Background)
	bg := tp.Alloc(false, t.tab.T, v)
	for r := 0; r < t.tab.T; r++ {
		w := float32(t.cfg.BackgroundWeight(int(t.tab.Level[r])))
		row := bg.Data[r*v : (r+1)*v]
		for j, b := range t.Background {
			row[j] = w * b
		}
	}
	return tp.Add(logits, bg)
}
