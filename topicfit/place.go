// Package topicfit fits the topic side of a GTFormer model to the
// documents, at the start of training and at its end. At the start: the
// topics are placed at a hierarchical k-means clustering of the documents
// (Place), σ's radius and temperature are calibrated to the documents'
// distances (Calibrate) and follow them as training spreads the documents
// (Track), and the decoder is fitted alone to the documents' words (Fit).
// At the end: the decoder refit (Fit again, on the final embeddings) and
// σ's radius and temperature fitted to the words (FitSimilarity). These
// are train-time procedures; the network itself lives in package model.
package topicfit

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// Place puts the topics where the documents are: it clusters
// the documents' tangent vectors (N,n) hierarchically along the tree (the
// root takes the mean of all documents; each parent's documents are split by
// k-means among its children, recursively) and sets each topic's input a_t
// so that the Doubly-RNN puts z_t at its cluster's centre.
//
// Why: σ(t,i) = 1/(1+exp(d²)) vanishes once a document is more than about 2
// from a topic, and stick-breaking then hands all mass to the last child at
// every level. With topics drawn at random, every document starts far from
// every topic, all documents choose the same last path, that path's topic
// learns the corpus's word frequencies, and the tree collapses (observed on
// ML and on the built-in corpus). Topics that start at clusters of
// documents start with σ of order 0.3 for their own documents, so every
// topic gets documents and gradient from the first step.
//
// With z_t = f_tanh(exp_o(W·u_t + a_t)), log_o z_t = tanh(W·u_t + a_t), so
// a_t = atanh(c_t) − W·u_t for the centre c_t (coordinates clipped to
// ±0.95). Topics are set in the Doubly-RNN's order, so u_t (from the parent
// and the left sibling) already reflects their new places.
func Place(m *model.Model, tangent []float32, seed uint64) error {
	n := m.Cfg.Width
	if len(tangent) == 0 || len(tangent)%n != 0 {
		return fmt.Errorf("topicfit: place: %d values are not rows of width %d", len(tangent), n)
	}
	N := len(tangent) / n
	t := m.Topics
	tab := t.Tables()
	rng := rand.New(rand.NewPCG(seed, 0x6b6d65616e73))

	// Cluster centres per topic row, top-down.
	centre := make([][]float64, tab.T)
	members := make([][]int, tab.T)
	all := make([]int, N)
	for i := range all {
		all[i] = i
	}
	members[0] = all
	centre[0] = meanRows(tangent, n, all)
	for _, rows := range tab.LevelRows {
		for _, r := range rows {
			kids := childRows(tab, int(r))
			if len(kids) == 0 {
				continue
			}
			cs, parts := kmeans(tangent, n, members[r], len(kids), rng)
			for k, c := range kids {
				centre[c], members[c] = cs[k], parts[k]
			}
		}
	}

	// Set a_t in Doubly-RNN order: root, then step by step.
	tp := tensor.NewTape()
	tp.NoGrad = true
	set := func(rows []int32, u *tensor.Tensor) {
		wu := tp.MatMul(u, t.DRNN.W, false, true) // (m,n) = u·Wᵀ
		for i, r := range rows {
			setInput(t, int(r), centre[r], wu.Data[i*n:(i+1)*n])
		}
	}
	mf := t.M
	origin := mf.Origin(tp, 1, n)
	set([]int32{0}, t.DRNN.PreCombine(tp, mf.ExpO(tp, t.RootIn), origin))
	for si := range tab.DRNN {
		tp.Reset()
		z, _ := t.Embeddings(tp) // with the inputs set so far
		st := tab.DRNN[si]
		origin := mf.Origin(tp, 1, n)
		zz := tp.Concat(0, origin, z)
		par := make([]int32, len(st.Rows))
		left := make([]int32, len(st.Rows))
		for i := range st.Rows {
			par[i] = st.Parents[i] + 1
			if st.Left[i] >= 0 {
				left[i] = st.Left[i] + 1
			}
		}
		set(st.Rows, t.DRNN.PreCombine(tp, tp.Gather(zz, par), tp.Gather(zz, left)))
	}
	return nil
}

// setInput sets topic row r's input a_r = atanh(c) − W·u_r, which puts
// log_o z_r at the centre c (coordinates clipped to ±0.95), for
// wu = u_r·Wᵀ (n).
func setInput(t *model.Topics, r int, c []float64, wu []float32) {
	n := len(wu)
	for j := range wu {
		cj := math.Max(-0.95, math.Min(0.95, c[j]))
		t.Input.Data[r*n+j] = float32(math.Atanh(cj) - float64(wu[j]))
	}
}

// childRows lists the rows whose parent is row r, in sibling order (dense
// rows keep siblings in order).
func childRows(tab *topictree.Tables, r int) []int {
	var out []int
	for c, p := range tab.Parent {
		if int(p) == r {
			out = append(out, c)
		}
	}
	return out
}

func meanRows(x []float32, n int, rows []int) []float64 {
	c := make([]float64, n)
	for _, i := range rows {
		for j, v := range x[i*n : (i+1)*n] {
			c[j] += float64(v)
		}
	}
	for j := range c {
		c[j] /= float64(max(len(rows), 1))
	}
	return c
}

// kmeans splits rows into k clusters (Lloyd's algorithm from k-means++
// seeds, 25 rounds) and returns the centres and members. Fewer rows than k
// leave some clusters empty, with the mean of all rows as their centre.
func kmeans(x []float32, n int, rows []int, k int, rng *rand.Rand) ([][]float64, [][]int) {
	cs := make([][]float64, k)
	if len(rows) == 0 {
		for i := range cs {
			cs[i] = make([]float64, n)
		}
		return cs, make([][]int, k)
	}
	dist := func(i int, c []float64) float64 {
		var s float64
		for j, v := range x[i*n : (i+1)*n] {
			d := float64(v) - c[j]
			s += d * d
		}
		return s
	}
	row := func(i int) []float64 {
		c := make([]float64, n)
		for j, v := range x[i*n : (i+1)*n] {
			c[j] = float64(v)
		}
		return c
	}
	cs[0] = row(rows[rng.IntN(len(rows))])
	d2 := make([]float64, len(rows))
	for c := 1; c < k; c++ {
		var tot float64
		for a, i := range rows {
			d2[a] = math.Inf(1)
			for _, cc := range cs[:c] {
				d2[a] = math.Min(d2[a], dist(i, cc))
			}
			tot += d2[a]
		}
		pick := rows[rng.IntN(len(rows))]
		if tot > 0 {
			u := rng.Float64() * tot
			for a, i := range rows {
				u -= d2[a]
				if u <= 0 {
					pick = i
					break
				}
			}
		}
		cs[c] = row(pick)
	}
	assign := make([]int, len(rows))
	for round := 0; round < 25; round++ {
		changed := false
		for a, i := range rows {
			best, bd := 0, math.Inf(1)
			for c := range cs {
				if d := dist(i, cs[c]); d < bd {
					best, bd = c, d
				}
			}
			if assign[a] != best || round == 0 {
				changed = changed || assign[a] != best
				assign[a] = best
			}
		}
		parts := make([][]int, k)
		for a, i := range rows {
			parts[assign[a]] = append(parts[assign[a]], i)
		}
		for c := range cs {
			if len(parts[c]) > 0 {
				cs[c] = meanRows(x, n, parts[c])
			}
		}
		if !changed && round > 0 {
			break
		}
	}
	parts := make([][]int, k)
	for a, i := range rows {
		parts[assign[a]] = append(parts[assign[a]], i)
	}
	return cs, parts
}
