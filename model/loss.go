package model

import (
	"fmt"
	"math"

	"github.com/gtformer/gtformer/tensor"
)

// Batch is one training step's worth of work: the centre documents (both
// ends of each positive link), their sampled neighbours, the contrastive
// pairs, and labels for the supervised head.
type Batch struct {
	Centres []int32 // B distinct documents
	Nbrs    Neighbors

	// Anchors and Positives index Centres: the graph loss asks Centres[a]
	// to be nearer Centres[Positives[i]] than every admissible candidate.
	Anchors, Positives []int32
	// Admissible (len(Anchors)*B) marks the candidates of each anchor: all
	// centres except the anchor itself and its other known neighbours
	// (false negatives); the positive is always admissible.
	Admissible []bool

	// Labels per centre for the supervised loss, −1 where the label must
	// not be trained on (unlabelled, validation or test documents).
	Labels []int32

	// Hop, when set, are the centres' hop features (B, HopWidth) to use
	// instead of the inputs' (train's target-link masking); nil: the
	// inputs'.
	Hop []float32
}

// Parts are the loss terms of a step, for logging and the NaN guard.
type Parts struct {
	Graph, Topic, Level, Branch, Div, Sup, Total float64
	// Out is the forward pass's output (the trainer's σ tracking reads the
	// batch's document and topic points from it).
	Out *Output
}

// Names returns the parts' names and values in a fixed order.
func (p Parts) Names() ([]string, []float64) {
	return []string{"graph", "topic", "level", "branch", "div", "sup", "total"}, []float64{p.Graph, p.Topic, p.Level, p.Branch, p.Div, p.Sup, p.Total}
}

// Loss runs the forward pass and returns L = L_graph + λ_topic·L_topic
// (+ λ_level·L_level + λ_branch·L_branch + λ_div·L_div + λ_sup·L_sup) with its parts. cache selects the
// historical-embedding option (nil: full nesting). It changes nothing in
// the model.
func (m *Model) Loss(tp *tensor.Tape, in *Inputs, b *Batch, cache *Cache) (*tensor.Tensor, Parts, error) {
	B := len(b.Centres)
	if len(b.Nbrs.Docs) != B*b.Nbrs.K || len(b.Admissible) != len(b.Anchors)*B || len(b.Positives) != len(b.Anchors) {
		return nil, Parts{}, fmt.Errorf("model: inconsistent batch: %d centres, %d neighbour slots (k=%d), %d anchors, %d positives, %d mask entries",
			B, len(b.Nbrs.Docs), b.Nbrs.K, len(b.Anchors), len(b.Positives), len(b.Admissible))
	}
	if b.Hop != nil && len(b.Hop) != B*in.HopWidth {
		return nil, Parts{}, fmt.Errorf("model: batch hop features: %d values for %d centres of width %d", len(b.Hop), B, in.HopWidth)
	}
	out := m.forwardHop(tp, in, b.Centres, b.Hop, b.Nbrs, cache)

	// Graph: logits −d² between anchors and all centres, in-batch negatives.
	sq := m.M.PairSqDist(tp, tp.Gather(out.Points, b.Anchors), out.Points) // (A,B)
	lg := contrastive(tp, tp.Scale(sq, -1), b.Admissible, b.Positives)
	total := lg
	var parts Parts
	parts.Graph = float64(lg.Data[0])

	var beta *tensor.Tensor // (T,V), when a term needs it
	if m.Cfg.LambdaTopic > 0 || m.Cfg.LambdaDiv > 0 {
		beta = m.Topics.Beta(tp, out.Z)
	}
	if m.Cfg.LambdaTopic > 0 {
		p := m.Topics.WordProbs(tp, out.Theta, beta) // (B,V) reconstructed word distribution
		ptr, word, count := in.SubsetBoW(b.Centres)
		lt := BowNLL(tp, p, ptr, word, count)
		parts.Topic = float64(lt.Data[0])
		total = tp.Add(total, tp.Scale(lt, float32(m.Cfg.LambdaTopic)))
	}
	if m.Cfg.LambdaLevel > 0 {
		ll := m.levelPrior(tp, out.Theta)
		parts.Level = float64(ll.Data[0])
		total = tp.Add(total, tp.Scale(ll, float32(m.Cfg.LambdaLevel)))
	}
	if m.Cfg.LambdaBranch > 0 {
		if lb := m.branchPrior(tp, out.Theta); lb != nil {
			parts.Branch = float64(lb.Data[0])
			total = tp.Add(total, tp.Scale(lb, float32(m.Cfg.LambdaBranch)))
		}
	}
	if m.Cfg.LambdaDiv > 0 {
		if ld := m.overlap(tp, beta); ld != nil {
			parts.Div = float64(ld.Data[0])
			total = tp.Add(total, tp.Scale(ld, float32(m.Cfg.LambdaDiv)))
		}
	}
	if m.Cfg.Supervised && m.Cfg.LambdaSup > 0 {
		if len(b.Labels) != B {
			return nil, Parts{}, fmt.Errorf("model: supervised batch has %d labels for %d centres", len(b.Labels), B)
		}
		if hasLabel(b.Labels) {
			ls := tp.CrossEntropy(m.classify(tp, out.Tangent), b.Labels)
			parts.Sup = float64(ls.Data[0])
			total = tp.Add(total, tp.Scale(ls, float32(m.Cfg.LambdaSup)))
		}
	}
	parts.Total = float64(total.Data[0])
	parts.Out = out
	return total, parts, nil
}

// classify returns the supervised head's logits (B, labels) from log_o d.
func (m *Model) classify(tp *tensor.Tape, tangent *tensor.Tensor) *tensor.Tensor {
	h := tp.GELU(m.SupHidden.Forward(tp, tangent))
	return m.SupOut.Forward(tp, h)
}

func hasLabel(labels []int32) bool {
	for _, l := range labels {
		if l >= 0 {
			return true
		}
	}
	return false
}

// SubsetBoW gathers the bag-of-words rows of docs into a fresh CSR (for
// BowNLL).
func (in *Inputs) SubsetBoW(docs []int32) (ptr []int64, word []int32, count []float32) {
	ptr = make([]int64, 1, len(docs)+1)
	for _, d := range docs {
		lo, hi := in.BowPtr[d], in.BowPtr[d+1]
		word = append(word, in.BowWord[lo:hi]...)
		count = append(count, in.BowCount[lo:hi]...)
		ptr = append(ptr, int64(len(word)))
	}
	return ptr, word, count
}

// levelPrior returns KL(π ‖ q̄) for θ (B,T): q̄_h is the batch's mean mass
// at level h (Σ of θ over the level's topics) and π the uniform over the
// tree's D levels:
//
//	KL = Σ_h π_h log(π_h / q̄_h) = Σ_h π_h log π_h − Σ_h π_h log q̄_h
//
// It is zero when the levels share the mass as π does and grows without
// bound as any level empties, so no level can be starved however the
// stick-breaking sits; per document, θ still chooses freely.
func (m *Model) levelPrior(tp *tensor.Tape, theta *tensor.Tensor) *tensor.Tensor {
	tab := m.Topics.Tables()
	D := tab.Depth
	ind := tp.Alloc(false, tab.T, D) // (T,D): topic t's level
	for t, l := range tab.Level {
		ind.Data[t*D+int(l)] = 1
	}
	q := tp.MeanAxis(tp.MatMul(theta, ind, false, false), 0) // (D)
	logq := tp.Log(tp.AddScalar(q, 1e-12))
	p := 1 / float64(D)
	negPi := tp.Alloc(false, D, 1)
	var ent float64 // Σ π log π
	for h := range D {
		negPi.Data[h] = -float32(p)
		ent += p * math.Log(p)
	}
	kl := tp.MatMul(tp.Reshape(logq, 1, D), negPi, false, false) // −Σ π log q̄
	return tp.AddScalar(tp.Reshape(kl, 1), float32(ent))
}

// branchPrior returns the mean over the tree's sibling groups (the
// children of every topic with two or more) of KL(u ‖ q̄), for θ (B,T):
// q̄_c is child c's share of its group's batch-mean subtree mass (the
// words of c and every topic below it) and u uniform over the group:
//
//	m̄_t = mean_b Σ_{u ∈ subtree(t)} θ_bu = mean_b (θ A)_t,  A_ut = [t ancestor-or-self of u]   (T)
//	KL_p = −log k_p − (1/k_p) Σ_{c child of p} log m̄_c + log Σ_{c child of p} m̄_c
//
// It is the level prior's argument applied across a level instead of down
// the tree: the path stick-breaking hands a parent's mass to its first
// children unless their σ are small, so without it one leaf can take most
// of the corpus while its siblings starve into topics of a handful of
// documents whose top words are those documents' rare ones. KL(u ‖ q̄)
// grows without bound as a child empties; per document, θ still chooses
// one path freely. nil when no topic has two children.
func (m *Model) branchPrior(tp *tensor.Tape, theta *tensor.Tensor) *tensor.Tensor {
	tab := m.Topics.Tables()
	T := tab.T
	kids := make([]int, T)
	for t := 1; t < T; t++ {
		kids[tab.Parent[t]]++
	}
	group := make([]int, T) // parent row -> group column, for parents of ≥ 2 children
	G := 0
	konst := 0.0
	for p, k := range kids {
		group[p] = -1
		if k >= 2 {
			group[p] = G
			G++
			konst -= math.Log(float64(k))
		}
	}
	if G == 0 {
		return nil
	}
	anc := tp.Alloc(false, T, T) // (T,T): A_ut = 1 when t is u or an ancestor of u
	for u := range T {
		for t := int32(u); t >= 0; t = tab.Parent[t] {
			anc.Data[u*T+int(t)] = 1
		}
	}
	w := tp.Alloc(false, T, 1)    // (T,1): −1/(k_p G) for a child c of a grouped parent p
	sum := tp.Alloc(false, T, G)  // (T,G): child c counts in its parent's group
	ones := tp.Alloc(false, G, 1) // (G,1): 1/G
	for c := 1; c < T; c++ {
		p := tab.Parent[c]
		if g := group[p]; g >= 0 {
			w.Data[c] = -1 / float32(kids[p]*G)
			sum.Data[c*G+g] = 1
		}
	}
	for g := range ones.Data {
		ones.Data[g] = 1 / float32(G)
	}
	mass := tp.Reshape(tp.MeanAxis(tp.MatMul(theta, anc, false, false), 0), 1, T) // (1,T)
	own := tp.MatMul(tp.Log(tp.AddScalar(mass, 1e-12)), w, false, false)          // (1,1): −mean_p (1/k_p) Σ_c log m̄_c
	tot := tp.Log(tp.AddScalar(tp.MatMul(mass, sum, false, false), 1e-12))        // (1,G): log Σ_c m̄_c
	kl := tp.Add(own, tp.MatMul(tot, ones, false, false))
	return tp.AddScalar(tp.Reshape(kl, 1), float32(konst/float64(G)))
}

// overlap returns the mean cosine similarity β_a·β_b / (‖β_a‖ ‖β_b‖) over
// the tree's parent-child pairs and sibling pairs, for β (T,V); nil when
// the tree has no such pair (a root alone). The cosine is dominated by
// each distribution's most probable words, so lowering it moves a child's
// top words off its parent's and its siblings'.
//
//	G = β βᵀ (T,T);  cos_ab = G_ab / √(G_aa G_bb)
func (m *Model) overlap(tp *tensor.Tape, beta *tensor.Tensor) *tensor.Tensor {
	tab := m.Topics.Tables()
	T := tab.T
	var a, b []int32
	kids := make(map[int32][]int32)
	for t := 1; t < T; t++ {
		p := tab.Parent[t]
		a, b = append(a, p), append(b, int32(t))
		for _, s := range kids[p] {
			a, b = append(a, s), append(b, int32(t))
		}
		kids[p] = append(kids[p], int32(t))
	}
	if len(a) == 0 {
		return nil
	}
	g := tp.Reshape(tp.MatMul(beta, beta, false, true), T*T, 1)
	idx := func(x, y []int32) []int32 {
		out := make([]int32, len(x))
		for i := range x {
			out[i] = x[i]*int32(T) + y[i]
		}
		return out
	}
	gab := tp.Gather(g, idx(a, b))
	gaa := tp.Gather(g, idx(a, a))
	gbb := tp.Gather(g, idx(b, b))
	cos := tp.Div(gab, tp.Sqrt(tp.Mul(gaa, gbb)))
	return tp.Reshape(tp.Mean(cos), 1)
}
