package topictree

// Tables are the tree flattened into index arrays over dense rows, rebuilt
// after each structural change, so that the model can run the Doubly-RNN and
// the stick-breaking op as batched array work. Row indices are int32 so they
// can be handed to gather ops directly. Tables are immutable: do not modify
// the slices.
type Tables struct {
	T     int // number of topics (rows)
	P     int // number of root-to-leaf paths (= number of leaves)
	Depth int // number of levels (max path length)

	ID      []int   // row -> topic id
	Parent  []int32 // row -> parent row; -1 for the root
	Level   []int32 // row -> level (root 0)
	Rank    []int32 // row -> sibling rank (0 for a first child and the root)
	LeftSib []int32 // row -> immediately left sibling's row; -1 for a first child and the root
	IsLeaf  []bool  // row -> has no children
	// IsLast marks the last child of its parent, which takes the rest of the
	// stick (its own σ is unused). The root is marked last (an only child of
	// nothing): its conditional probability is 1.
	IsLast []bool
	// LeftSiblings[r] lists all left siblings of row r, in sibling order
	// (views into one backing array).
	LeftSiblings [][]int32

	// DRNN lists the Doubly-RNN steps in the order they must run: level 1
	// rank 0, level 1 rank 1, …, level 2 rank 0, … . Each step's parents
	// are at the previous level and its left siblings at the previous rank,
	// so both are computed by earlier steps (the root, row 0, comes first
	// and is not a step).
	DRNN []DRNNStep

	// Paths[p] lists the rows of root-to-leaf path p by level (Paths[p][0] is
	// the root, the last entry the leaf). Paths are ordered by the leaf's row.
	Paths [][]int32
	// PathLen[p] = len(Paths[p]) = level of the leaf + 1.
	PathLen []int32
	// Leaf[p] is the leaf row of path p; PathOf[r] is the path of leaf row r
	// (-1 for inner topics).
	Leaf   []int32
	PathOf []int32
	// LevelRows[l] lists the rows at level l (a contiguous range in dense
	// order, given explicitly for convenience).
	LevelRows [][]int32
}

// DRNNStep is one batched step of the Doubly-RNN: the topics at one
// (level, sibling rank), with their parents' rows and their left siblings'
// rows (-1 where rank is 0: the fraternal state is then the origin).
type DRNNStep struct {
	Level, Rank int
	Rows        []int32
	Parents     []int32
	Left        []int32
}

func buildTables(t *Tree) *Tables {
	n := len(t.order)
	tb := &Tables{
		T:       n,
		ID:      append([]int(nil), t.order...),
		Parent:  make([]int32, n),
		Level:   make([]int32, n),
		Rank:    make([]int32, n),
		LeftSib: make([]int32, n),
		IsLeaf:  make([]bool, n),
		IsLast:  make([]bool, n),
		PathOf:  make([]int32, n),
	}
	nLeft := 0
	for r, id := range t.order {
		nd := t.nodes[id]
		tb.Level[r] = int32(nd.level)
		tb.IsLeaf[r] = len(nd.children) == 0
		tb.Depth = max(tb.Depth, nd.level+1)
		if nd.parent < 0 {
			tb.Parent[r], tb.LeftSib[r], tb.IsLast[r] = -1, -1, true
			continue
		}
		tb.Parent[r] = int32(t.rowOf[nd.parent])
		sibs := t.nodes[nd.parent].children
		for k, s := range sibs {
			if s == id {
				tb.Rank[r] = int32(k)
				tb.IsLast[r] = k == len(sibs)-1
				tb.LeftSib[r] = -1
				if k > 0 {
					tb.LeftSib[r] = int32(t.rowOf[sibs[k-1]])
				}
				nLeft += k
				break
			}
		}
	}

	// Left-sibling lists share one backing array. Siblings have consecutive
	// rows in breadth-first order, so the left siblings of r are the rows
	// r-rank .. r-1.
	back := make([]int32, 0, nLeft)
	tb.LeftSiblings = make([][]int32, n)
	for r := range n {
		start := len(back)
		for k := int32(0); k < tb.Rank[r]; k++ {
			back = append(back, int32(r)-tb.Rank[r]+k)
		}
		tb.LeftSiblings[r] = back[start:len(back):len(back)]
	}

	// Rows per level.
	tb.LevelRows = make([][]int32, tb.Depth)
	for r := range n {
		l := tb.Level[r]
		tb.LevelRows[l] = append(tb.LevelRows[l], int32(r))
	}

	// Doubly-RNN steps, level by level, rank by rank.
	for l := 1; l < tb.Depth; l++ {
		var byRank [][]int32
		for _, r := range tb.LevelRows[l] {
			k := int(tb.Rank[r])
			for len(byRank) <= k {
				byRank = append(byRank, nil)
			}
			byRank[k] = append(byRank[k], r)
		}
		for k, rows := range byRank {
			st := DRNNStep{Level: l, Rank: k, Rows: rows, Parents: make([]int32, len(rows)), Left: make([]int32, len(rows))}
			for i, r := range rows {
				st.Parents[i] = tb.Parent[r]
				st.Left[i] = tb.LeftSib[r]
			}
			tb.DRNN = append(tb.DRNN, st)
		}
	}

	// Paths, one per leaf in row order.
	for r := range n {
		tb.PathOf[r] = -1
		if !tb.IsLeaf[r] {
			continue
		}
		h := int(tb.Level[r]) + 1
		path := make([]int32, h)
		for q, l := int32(r), h-1; l >= 0; q, l = tb.Parent[q], l-1 {
			path[l] = q
		}
		tb.PathOf[r] = int32(len(tb.Paths))
		tb.Paths = append(tb.Paths, path)
		tb.PathLen = append(tb.PathLen, int32(h))
		tb.Leaf = append(tb.Leaf, int32(r))
	}
	tb.P = len(tb.Paths)
	return tb
}

// SubtreeSums turns x (T, one value per dense row) in place into its sums
// over subtrees: x[t] becomes the sum of x over t and its descendants.
// Rows run children after parents, so one pass in reverse adds each row
// into its parent after the row has gathered its own subtree.
func (tb *Tables) SubtreeSums(x []float64) {
	for r := tb.T - 1; r >= 1; r-- {
		x[tb.Parent[r]] += x[r]
	}
}
