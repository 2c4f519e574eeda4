package explore

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
)

// The Poincaré-disk view. A point x of the hyperboloid (curvature −1/K)
// maps to the Poincaré ball of radius 1 as u = x_s / (x0 + √K); its
// distance from the centre is |u| = tanh(d(o,x) / 2√K), d(o,x) = |log_o x|
// the hyperbolic distance from the origin. The view keeps that radius
// exactly and takes the angle from a 2-D projection of the point's
// direction û = x_s/|x_s|: it is drawn at |u| · w/|w| with w = P(û − m),
// m the mean direction and P the two leading principal axes of the
// directions of the topics and of a sample of documents. So the root's
// distance from the centre and every point's depth toward the rim are the
// model's own; the angle shows how a point's direction departs from the
// common one, in the plane where the directions vary most (without
// centring, the shared direction that documents have in common takes the
// first axis and crowds them into one side of the disk). A Euclidean
// model (the ablation) is drawn the same way with K = 1 and d the
// Euclidean norm.
const layoutMethod = "Poincaré disk: radius tanh(d(o,x)/2√K) exact; angle from the 2 leading principal components of the topics' and sampled documents' directions"

// DensityGrid is the side of the density grid over the disk.
const DensityGrid = 64

// pcaSample bounds the documents the principal axes are fitted on.
const pcaSample = 5000

// layoutSeed fixes the document sample: the same model and corpus give the
// same view.
const layoutSeed = 0x6c61796f7574

// Layout is the Poincaré-disk view (GET /v1/layout): every topic, a sample
// of the documents (never all of a large corpus) and the density of all of
// them. Coordinates are in the unit disk.
type Layout struct {
	Method  string       `json:"method"`
	Topics  []TopicPoint `json:"topics"`
	Docs    []DocPoint   `json:"docs"`
	Total   int          `json:"documents_total"`
	ColorBy string       `json:"color_by"` // "label", or "topic": the document path's level-1 topic
	Colors  []string     `json:"colors"`   // names of the colour classes (a topic's: "#id label")
	Density Density      `json:"density"`
}

// TopicPoint is a topic in the disk.
type TopicPoint struct {
	ID int     `json:"id"`
	X  float64 `json:"x"`
	Y  float64 `json:"y"`
}

// DocPoint is a document in the disk with its colour class (-1: none).
type DocPoint struct {
	ID    string  `json:"id"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Color int     `json:"c"`
}

// Density counts all documents per cell of a Size × Size grid over
// [-1, 1]², row-major from (x, y) = (-1, -1).
type Density struct {
	Size   int   `json:"size"`
	Counts []int `json:"counts"`
}

type layout struct {
	topics  []TopicPoint
	xy      []float32 // (N, 2) documents' disk coordinates
	color   []int16   // per document
	perm    []int32   // a fixed random order of the documents (samples are its prefixes)
	colorBy string
	colors  []string // the labels' names (colorBy "label")
	// colorTopics are the colour classes' topics, the root's children
	// (colorBy "topic"), named with their labels when asked; nil otherwise.
	colorTopics []int
	density     Density
}

func newLayout(m *model.Model, emb *model.Embeddings, ix *Index) *layout {
	N, c := ix.g.NumDocs(), m.Cfg.Width+1
	K := 1.0
	if m.Cfg.Geometry != "euclidean" && m.Cfg.Curvature > 0 {
		K = m.Cfg.Curvature
	}
	lo := &layout{perm: make([]int32, N)}
	rng := rand.New(rand.NewPCG(layoutSeed, uint64(N)))
	for i, p := range rng.Perm(N) {
		lo.perm[i] = int32(p)
	}

	tp := tensor.NewTape()
	tp.NoGrad = true
	z, _ := m.Topics.Embeddings(tp)
	topicV := m.M.LogO(tp, z).Data // (T, n)
	tangent := func(docs []int32) []float32 {
		x := make([]float32, 0, len(docs)*c)
		for _, d := range docs {
			x = append(x, ix.Point(int(d))...)
		}
		tp.Reset()
		return slices.Clone(m.M.LogO(tp, tensor.FromData(x, len(docs), c)).Data)
	}
	n := c - 1
	fit := append(slices.Clone(topicV), tangent(lo.perm[:min(pcaSample, N)])...)
	P, mean := principalAxes(fit, n)

	place := func(v []float32) (x, y float64) {
		var r2 float64
		for _, a := range v {
			r2 += float64(a) * float64(a)
		}
		if r2 == 0 {
			return 0, 0
		}
		r := math.Sqrt(r2)
		var px, py float64
		for j, a := range v {
			d := float64(a)/r - mean[j]
			px += P[0][j] * d
			py += P[1][j] * d
		}
		rho := math.Tanh(r / (2 * math.Sqrt(K)))
		s := math.Hypot(px, py)
		if s == 0 {
			return rho, 0
		}
		return rho * px / s, rho * py / s
	}
	for r := range ix.nodes {
		x, y := place(topicV[r*n : (r+1)*n])
		lo.topics = append(lo.topics, TopicPoint{ID: ix.nodes[r].ID, X: x, Y: y})
	}

	lo.xy = make([]float32, 2*N)
	lo.density = Density{Size: DensityGrid, Counts: make([]int, DensityGrid*DensityGrid)}
	const chunk = 4096
	for s := 0; s < N; s += chunk {
		docs := make([]int32, 0, chunk)
		for i := s; i < min(s+chunk, N); i++ {
			docs = append(docs, int32(i))
		}
		v := tangent(docs)
		for k, d := range docs {
			x, y := place(v[k*n : (k+1)*n])
			lo.xy[2*d], lo.xy[2*d+1] = float32(x), float32(y)
			gx := min(int((x+1)/2*DensityGrid), DensityGrid-1)
			gy := min(int((y+1)/2*DensityGrid), DensityGrid-1)
			lo.density.Counts[max(gy, 0)*DensityGrid+max(gx, 0)]++
		}
	}

	lo.color = make([]int16, N)
	if ix.g.Labels != nil {
		lo.colorBy = "label"
		lo.colors = append([]string{}, ix.g.LabelNames...)
		for i := range lo.color {
			lo.color[i] = int16(ix.g.Labels[i])
		}
	} else {
		// The level-1 topic on each document's path: the tree's main
		// branches.
		lo.colorBy = "topic"
		root := ix.nodes[0]
		class := map[int]int16{}
		for k, id := range root.Children {
			class[id] = int16(k)
			lo.colorTopics = append(lo.colorTopics, id)
		}
		for i := range lo.color {
			lo.color[i] = -1
			if p := ix.pathRows(i); len(p) > 1 {
				lo.color[i] = class[ix.nodes[p[1]].ID]
			}
		}
	}
	return lo
}

// principalAxes returns the two leading principal axes of the unit
// directions û of the rows of x (rows of n values; zero rows are skipped)
// and their mean m: the leading eigenvectors of Σ (û−m)(û−m)ᵀ, each with
// its largest component positive so that the view does not flip between
// runs. With n = 1 the second axis is zero.
func principalAxes(x []float32, n int) (axes [2][]float64, mean []float64) {
	var dirs [][]float64
	mean = make([]float64, n)
	for r := 0; r+n <= len(x); r += n {
		var ss float64
		for j := 0; j < n; j++ {
			ss += float64(x[r+j]) * float64(x[r+j])
		}
		if ss == 0 {
			continue
		}
		u := make([]float64, n)
		inv := 1 / math.Sqrt(ss)
		for j := range u {
			u[j] = float64(x[r+j]) * inv
			mean[j] += u[j]
		}
		dirs = append(dirs, u)
	}
	axes[0], axes[1] = make([]float64, n), make([]float64, n)
	if len(dirs) == 0 {
		axes[0][0] = 1
		if n > 1 {
			axes[1][1] = 1
		}
		return axes, mean
	}
	for j := range mean {
		mean[j] /= float64(len(dirs))
	}
	sym := mat.NewSymDense(n, nil)
	c := make([]float64, n)
	for _, u := range dirs {
		for j := range c {
			c[j] = u[j] - mean[j]
		}
		sym.SymRankOne(sym, 1, mat.NewVecDense(n, c))
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		axes[0][0] = 1
		if n > 1 {
			axes[1][1] = 1
		}
		return axes, mean
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	// Eigenvalues come in ascending order: the leading two are last.
	for a := 0; a < 2 && a < n; a++ {
		col := n - 1 - a
		big := 0.0
		for j := 0; j < n; j++ {
			v := vecs.At(j, col)
			axes[a][j] = v
			if math.Abs(v) > math.Abs(big) {
				big = v
			}
		}
		if big < 0 {
			for j := range axes[a] {
				axes[a][j] = -axes[a][j]
			}
		}
	}
	return axes, mean
}

// Layout returns the disk view with a sample of at most sample documents
// (a fixed random sample: the same for every call with the same size).
func (ix *Index) Layout(sample int) *Layout {
	lo := ix.layout
	out := &Layout{Method: layoutMethod, Topics: lo.topics, Total: ix.g.NumDocs(),
		ColorBy: lo.colorBy, Colors: lo.colors, Density: lo.density, Docs: []DocPoint{}}
	if lo.colorTopics != nil {
		// Named when asked: a topic may have been renamed since.
		out.Colors = make([]string, len(lo.colorTopics))
		for k, id := range lo.colorTopics {
			name, _ := ix.labels.label(ix.rowOf[id], id)
			out.Colors[k] = "#" + strconv.Itoa(id) + " " + name
		}
	}
	for _, d := range ix.Sample(sample) {
		out.Docs = append(out.Docs, DocPoint{ID: ix.DocID(d), X: float64(lo.xy[2*d]), Y: float64(lo.xy[2*d+1]), Color: int(lo.color[d])})
	}
	return out
}

// Sample returns at most k documents, a fixed random sample (prefixes of
// one permutation, so a smaller sample is part of a larger one), in
// document order.
func (ix *Index) Sample(k int) []int {
	p := ix.layout.perm[:min(max(k, 0), len(ix.layout.perm))]
	out := make([]int, len(p))
	for i, d := range p {
		out[i] = int(d)
	}
	slices.Sort(out)
	return out
}
