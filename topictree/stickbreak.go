package topictree

import (
	"fmt"

	"github.com/gtformer/gtformer/tensor"
)

// Stick-breaking over the tree (paper eqs. 5-6 and the level distribution,
// with the last child and the last level taking the rest of the stick:
// docs/design.md, "Topic tree").
//
// Notation for one document, over dense rows t (root r = 0):
//
//	σ_t  = σ_topic[t]   similarity to topic t, in (0, 1) from Fermi-Dirac ((0, 1/2] for the paper's r = 0)
//	λ_h  = σ_level[h]   similarity to level h's state
//
// Conditional probability of topic t given its parent (left siblings s < t):
//
//	rem_t  = Π_{s left of t} (1 − σ_s)          (stick left when t's turn comes)
//	cond_t = σ_t · rem_t   if t is not its parent's last child
//	cond_t = rem_t         if t is the last child (σ_t unused)
//	cond_root = 1
//
// So Σ_{children c of q} cond_c = 1 for every parent q (the stick telescopes:
// σ_1 + (1−σ_1)σ_2 + … + Π_{k<n}(1−σ_k) = 1).
//
// reach_t = Π of cond along the path root→t = reach_parent · cond_t, and the
// path probability is π(p) = reach_{leaf(p)}. By induction from the leaves
// (the children's conds sum to one), Σ_{leaves ℓ below t} reach_ℓ = reach_t,
// so Σ_p π(p) = reach_root = 1 and, for any topic t, Σ_{p ∋ t} π(p) = reach_t.
//
// Levels: S_h = Π_{h'<h} (1 − λ_h') (S_0 = 1). A path of length H (levels
// 0..H−1) has δ^{(H)}_h = λ_h S_h for h < H−1 and δ^{(H)}_{H−1} = S_{H−1}
// (the last level takes the rest); Σ_h δ^{(H)}_h = 1 by the same telescoping.
//
// θ_t = Σ_{p ∋ t} π(p) δ^{(H_p)}(level t). If t is a leaf, exactly one path
// holds it and t is that path's last level: θ_t = reach_t S_l. If t is not a
// leaf, every path through t continues below it, so level l = level(t) is
// never the path's last and δ is λ_l S_l for all of them: θ_t = λ_l S_l reach_t.
// Hence
//
//	θ_t = reach_t · w_t,  w_t = S_l (leaf) or λ_l S_l (inner),  l = level(t),
//
// which costs O(T) per document, and
//
//	Σ_t θ_t = Σ_p π(p) Σ_{h<H_p} δ^{(H_p)}_h = Σ_p π(p) · 1 = 1
//
// exactly, whatever the leaves' depths: no renormalisation is needed (the
// terms are products of numbers in [0, 1], so float64 rounding leaves the sum
// within a few ulps of one). Note λ at the deepest level D−1 is never used,
// and neither is σ of the root or of any last child: their gradients are 0.
//
// Backward (reverse mode; g_x = ∂L/∂x, given g_θ):
//
//	g_reach_t += g_θt · w_t
//	g_S_l     += g_θt · reach_t · (1 for a leaf, λ_l for an inner topic)
//	g_λ_l     += g_θt · reach_t · S_l            (inner topics)
//	S_{h+1} = S_h (1 − λ_h):  for h = D−2 … 0:
//	    g_λ_h −= g_S_{h+1} S_h;  g_S_h += g_S_{h+1} (1 − λ_h)
//	reach_t = reach_q cond_t (q parent), rows in reverse (children before
//	parents, right siblings before left):
//	    g_cond_t = g_reach_t reach_q;  g_reach_q += g_reach_t cond_t
//	    last child:  g_rem_t += g_cond_t
//	    otherwise:   g_σ_t += g_cond_t rem_t;  g_rem_t += g_cond_t σ_t
//	    rem_t = rem_s (1 − σ_s) (s left sibling):
//	        g_rem_s += g_rem_t (1 − σ_s);  g_σ_s −= g_rem_t rem_s
//
// No divisions, so the gradient stays finite at σ = 1 or 0.

// kernel runs the stick-breaking for one document at a time in float64. Its
// scratch is sized once per op call and reused for every document.
type kernel struct {
	tab                      *Tables
	rem, cond, reach         []float64 // (T)
	gRem, gReach             []float64 // (T)
	surv, gSurv              []float64 // (Depth)
	sigT, sigL, gSigT, gSigL []float64 // float64 copies of one document's inputs and gradients
}

func newKernel(tab *Tables, hLevel int) *kernel {
	T, D := tab.T, tab.Depth
	n := 7*T + 2*D + 2*hLevel
	buf := make([]float64, n)
	take := func(n int) []float64 { s := buf[:n:n]; buf = buf[n:]; return s }
	k := &kernel{
		tab: tab, rem: take(T), cond: take(T), reach: take(T),
		gRem: take(T), gReach: take(T), sigT: take(T), gSigT: take(T),
		surv: take(D), gSurv: take(D), sigL: take(hLevel), gSigL: take(hLevel),
	}
	return k
}

// forward fills rem, cond, reach and surv from sigT (T) and sigL (≥ Depth)
// and writes θ (T) when theta is non-nil. Locals resliced to T let the
// compiler drop most bounds checks in the row loops.
func (k *kernel) forward(sigT, sigL, theta []float64) {
	tb := k.tab
	T := tb.T
	rem, cond, reach := k.rem[:T], k.cond[:T], k.reach[:T]
	sigT = sigT[:T]
	left, parent, isLast := tb.LeftSib[:T], tb.Parent[:T], tb.IsLast[:T]
	rem[0], cond[0], reach[0] = 1, 1, 1
	for t := 1; t < T; t++ {
		r := 1.0
		if s := left[t]; s >= 0 {
			r = rem[s] * (1 - sigT[s])
		}
		rem[t] = r
		c := r
		if !isLast[t] {
			c *= sigT[t]
		}
		cond[t] = c
		reach[t] = reach[parent[t]] * c
	}
	surv := k.surv
	surv[0] = 1
	for h := 1; h < len(surv); h++ {
		surv[h] = surv[h-1] * (1 - sigL[h-1])
	}
	if theta == nil {
		return
	}
	theta = theta[:T]
	level, isLeaf := tb.Level[:T], tb.IsLeaf[:T]
	for t := range theta {
		l := level[t]
		w := surv[l]
		if !isLeaf[t] {
			w *= sigL[l]
		}
		theta[t] = reach[t] * w
	}
}

// backward accumulates (+=) into gSigT (T) and gSigL (≥ Depth) the gradient
// of Σ_t gTheta_t θ_t; forward must have run on the same inputs.
func (k *kernel) backward(sigT, sigL, gTheta, gSigT, gSigL []float64) {
	tb := k.tab
	T := tb.T
	rem, cond, reach := k.rem[:T], k.cond[:T], k.reach[:T]
	gRem, gReach := k.gRem[:T], k.gReach[:T]
	sigT, gTheta, gSigT = sigT[:T], gTheta[:T], gSigT[:T]
	surv, gSurv := k.surv, k.gSurv
	level, isLeaf := tb.Level[:T], tb.IsLeaf[:T]
	left, parent, isLast := tb.LeftSib[:T], tb.Parent[:T], tb.IsLast[:T]
	clear(gRem)
	clear(gSurv)
	for t := range gTheta {
		l := level[t]
		g := gTheta[t]
		if isLeaf[t] {
			gReach[t] = g * surv[l]
			gSurv[l] += g * reach[t]
		} else {
			gReach[t] = g * sigL[l] * surv[l]
			gSurv[l] += g * reach[t] * sigL[l]
			gSigL[l] += g * reach[t] * surv[l]
		}
	}
	for h := len(surv) - 2; h >= 0; h-- {
		gSigL[h] -= gSurv[h+1] * surv[h]
		gSurv[h] += gSurv[h+1] * (1 - sigL[h])
	}
	for t := T - 1; t >= 1; t-- {
		q := parent[t]
		gr := gReach[t]
		gCond := gr * reach[q]
		gReach[q] += gr * cond[t]
		if isLast[t] {
			gRem[t] += gCond
		} else {
			gSigT[t] += gCond * rem[t]
			gRem[t] += gCond * sigT[t]
		}
		if s := left[t]; s >= 0 {
			gRem[s] += gRem[t] * (1 - sigT[s])
			gSigT[s] -= gRem[t] * rem[s]
		}
	}
}

// StickBreak is the fused, differentiable tree stick-breaking op.
//
// Inputs, per document (B rows):
//
//	sigmaTopic (B,T): σ of each document to each topic, columns in dense row order
//	sigmaLevel (B,H): σ to each level's state, H ≥ tab.Depth (columns ≥ Depth unused)
//
// Outputs:
//
//	theta (B,T):      topic distribution, each row sums to one; differentiable
//	pi    (B,P):      path distribution (path p = tab.Paths[p]), rows sum to one
//	delta (B,P,Depth): level distribution of each path (δ^{(H_p)}, zero beyond
//	                  the path's length), each (b,p) row sums to one
//
// pi and delta are for inspection and carry no gradient. Internally float64;
// cost O(B·(T + P·Depth)). All three live in tp's arena. tab must be the
// tables of the tree the σ columns were computed for; the op keeps tab for
// its backward pass (tables are immutable, so a later tree change is safe).
// It panics on shape mismatches (programmer errors). Use Theta when π and δ
// are not needed.
func StickBreak(tp *tensor.Tape, tab *Tables, sigmaTopic, sigmaLevel *tensor.Tensor) (theta, pi, delta *tensor.Tensor) {
	return stickBreak(tp, tab, sigmaTopic, sigmaLevel, true)
}

// Theta is StickBreak without the inspection outputs π and δ: the training
// path, costing O(B·T) and no (B,P,Depth) buffer.
func Theta(tp *tensor.Tape, tab *Tables, sigmaTopic, sigmaLevel *tensor.Tensor) *tensor.Tensor {
	theta, _, _ := stickBreak(tp, tab, sigmaTopic, sigmaLevel, false)
	return theta
}

func stickBreak(tp *tensor.Tape, tab *Tables, sigmaTopic, sigmaLevel *tensor.Tensor, inspect bool) (theta, pi, delta *tensor.Tensor) {
	if len(sigmaTopic.Shape) != 2 || sigmaTopic.Shape[1] != tab.T {
		panic(fmt.Sprintf("topictree: StickBreak: sigmaTopic %v, want (B,%d)", sigmaTopic.Shape, tab.T))
	}
	B := sigmaTopic.Shape[0]
	if len(sigmaLevel.Shape) != 2 || sigmaLevel.Shape[0] != B || sigmaLevel.Shape[1] < tab.Depth {
		panic(fmt.Sprintf("topictree: StickBreak: sigmaLevel %v, want (%d,≥%d)", sigmaLevel.Shape, B, tab.Depth))
	}
	T, P, D, H := tab.T, tab.P, tab.Depth, sigmaLevel.Shape[1]
	theta = tp.Alloc(tensor.AnyGrad(sigmaTopic, sigmaLevel), B, T)
	if inspect {
		pi = tp.Alloc(false, B, P)
		delta = tp.Alloc(false, B, P, D)
	}
	k := newKernel(tab, H)
	th := k.gSigT // scratch for θ in float64 during forward
	for b := range B {
		loadRow(k.sigT, sigmaTopic.Data[b*T:(b+1)*T])
		loadRow(k.sigL, sigmaLevel.Data[b*H:(b+1)*H])
		k.forward(k.sigT, k.sigL, th)
		storeRow(theta.Data[b*T:(b+1)*T], th)
		if !inspect {
			continue
		}
		piRow := pi.Data[b*P : (b+1)*P]
		for p, leaf := range tab.Leaf {
			piRow[p] = float32(k.reach[leaf])
		}
		for p, hp := range tab.PathLen {
			dRow := delta.Data[(b*P+p)*D : (b*P+p+1)*D]
			for h := range int(hp) - 1 {
				dRow[h] = float32(k.sigL[h] * k.surv[h])
			}
			dRow[hp-1] = float32(k.surv[hp-1])
		}
	}
	tp.Record(theta, func() {
		gTheta := make([]float64, T)
		for b := range B {
			loadRow(k.sigT, sigmaTopic.Data[b*T:(b+1)*T])
			loadRow(k.sigL, sigmaLevel.Data[b*H:(b+1)*H])
			loadRow(gTheta, theta.Grad[b*T:(b+1)*T])
			clear(k.gSigT)
			clear(k.gSigL)
			k.forward(k.sigT, k.sigL, nil)
			k.backward(k.sigT, k.sigL, gTheta, k.gSigT, k.gSigL)
			if g := sigmaTopic.Grad; g != nil {
				addRow(g[b*T:(b+1)*T], k.gSigT)
			}
			if g := sigmaLevel.Grad; g != nil {
				addRow(g[b*H:(b+1)*H], k.gSigL)
			}
		}
	})
	return theta, pi, delta
}

func loadRow(dst []float64, src []float32) {
	for i, v := range src {
		dst[i] = float64(v)
	}
}

func storeRow(dst []float32, src []float64) {
	for i, v := range src {
		dst[i] = float32(v)
	}
}

func addRow(dst []float32, src []float64) {
	for i, v := range src {
		dst[i] += float32(v)
	}
}
