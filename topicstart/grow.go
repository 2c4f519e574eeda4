package topicstart

import (
	"fmt"
	"math"
	"slices"

	"github.com/gtformer/gtformer/model"
	"github.com/gtformer/gtformer/tensor"
	"github.com/gtformer/gtformer/topictree"
)

// PlaceAdded puts topics that a tree update has just added (rows added,
// each a new leaf and the last child of its parent) where their parent's
// documents are served worst by its other children, instead of at the
// parent's input plus noise (model.Topics.Remap's start).
//
// Why: a child that starts at its parent takes the parent's words and the
// documents the parent already explains; it then either stays a near copy
// (the children of a grown tree share their parents' top words) or ends
// with a handful of documents (the late topics of a grown tree hold under
// 1% of the words and score the worst NPMI). The parent's documents that
// lie farthest from every existing child are the ones the subtree explains
// worst, so that is where a new topic has something to add: its start is
// the mean of the 1/(k+1) of them (k existing children) farthest from their
// nearest child, as a k-means++ seed is drawn far from the centres so far.
//
// tangent (N,n) and points (N,n+1) are the documents' log_o coordinates and
// points, indexed by document id; docs are the documents to read (rows of
// other documents are ignored). A parent's documents are those whose
// subtree mass Σ_{u under p} θ_u is largest at p among the topics of p's
// level. A parent without documents leaves its new child where it is.
// As in Place, a_t = atanh(c_t) − W·u_t with the centre's coordinates
// clipped to ±0.95; a last child is no topic's parent or left sibling, so
// setting its input moves no other topic.
func PlaceAdded(m *model.Model, tangent, points []float32, docs []int32, added []int) error {
	if len(added) == 0 {
		return nil
	}
	n := m.Cfg.Width
	t := m.Topics
	tab := t.Tables()
	for _, r := range added {
		if r <= 0 || r >= tab.T {
			return fmt.Errorf("topicstart: place added: row %d outside 1..%d", r, tab.T-1)
		}
		kids := childRows(tab, int(tab.Parent[r]))
		if kids[len(kids)-1] != r || slices.Contains(tab.Parent, int32(r)) {
			return fmt.Errorf("topicstart: place added: row %d is not a leaf and its parent's last child", r)
		}
	}
	var rows []int // the documents read, with rows in tangent and points
	for _, d := range docs {
		if int(d+1)*(n+1) > len(points) || int(d+1)*n > len(tangent) {
			return fmt.Errorf("topicstart: place added: document %d outside %d points", d, len(points)/(n+1))
		}
		rows = append(rows, int(d))
	}
	if len(rows) == 0 {
		return nil
	}

	tp := tensor.NewTape()
	tp.NoGrad = true
	z, zh := t.Embeddings(tp)                                                       // (T,n+1), (H,n+1)
	pts := tp.Gather(tensor.FromData(points, len(points)/(n+1), n+1), int32s(rows)) // (N,n+1)
	theta := t.Theta(tp, pts, z, zh)                                                // (N,T)
	mass := subtreeMass(tab, theta.Data, len(rows))                                 // (N,T)
	isAdded := map[int]bool{}
	for _, r := range added {
		isAdded[r] = true
	}

	for _, c := range added {
		p := int(tab.Parent[c])
		var kids []int32 // the existing children
		for _, k := range childRows(tab, p) {
			if !isAdded[k] {
				kids = append(kids, int32(k))
			}
		}
		level := tab.Level[p]
		var members []int // positions in rows
		for i := range rows {
			best, bi := -1.0, -1
			for u := 0; u < tab.T; u++ {
				if tab.Level[u] == level && mass[i*tab.T+u] > best {
					best, bi = mass[i*tab.T+u], u
				}
			}
			if bi == p && best > 0 {
				members = append(members, i)
			}
		}
		if len(members) == 0 {
			continue
		}
		// Squared distance of each member to its nearest existing child.
		far := make([]float64, len(members))
		for i := range far {
			far[i] = math.Inf(1)
		}
		if len(kids) > 0 {
			sq := m.M.PairSqDist(tp, tp.Gather(pts, int32s(members)), tp.Gather(z, kids)) // (|members|, k)
			for i := range members {
				for j := range kids {
					far[i] = min(far[i], float64(sq.Data[i*len(kids)+j]))
				}
			}
		}
		order := make([]int, len(members))
		for i := range order {
			order[i] = i
		}
		// Farthest first; ties by position, so the choice is deterministic.
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case far[a] > far[b]:
				return -1
			case far[a] < far[b]:
				return 1
			}
			return 0
		})
		take := max(1, len(members)/(len(kids)+1))
		chosen := make([]int, take)
		for i := range chosen {
			chosen[i] = rows[members[order[i]]]
		}
		centre := meanRows(tangent, n, chosen)

		// u_c from the parent and the left sibling (the origin for a first
		// child), then a_c = atanh(centre) − u_c·Wᵀ.
		zz := tp.Concat(0, t.M.Origin(tp, 1, n), z)
		left := int32(0)
		if len(kids) > 0 {
			left = kids[len(kids)-1] + 1
		}
		u := t.DRNN.PreCombine(tp, tp.Gather(zz, []int32{int32(p + 1)}), tp.Gather(zz, []int32{left}))
		setInput(t, c, centre, tp.MatMul(u, t.DRNN.W, false, true).Data) // u·Wᵀ (1,n)
	}
	return nil
}

// subtreeMass returns, for θ (N,T) over the tree tab describes
// (Tables.SubtreeSums per document), each document's mass in
// every topic's subtree: the topic's own θ plus its descendants'.
func subtreeMass(tab *topictree.Tables, theta []float32, N int) []float64 {
	T := tab.T
	out := make([]float64, N*T)
	for i := 0; i < N; i++ {
		row := out[i*T : (i+1)*T]
		for u := 0; u < T; u++ {
			row[u] = float64(theta[i*T+u])
		}
		tab.SubtreeSums(row)
	}
	return out
}

func int32s(x []int) []int32 {
	out := make([]int32, len(x))
	for i, v := range x {
		out[i] = int32(v)
	}
	return out
}
