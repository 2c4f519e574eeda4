package lorentz

import (
	"fmt"

	"github.com/gtformer/gtformer/tensor"
)

// Manifold is the geometry the hyperbolic layers run on: Hyperboloid{K} or,
// for the ablation, Euclidean{}. Every op records its backward on the tape.
// Shapes: points and tangent vectors at a point are (N, n+1) (leading
// dimensions are flattened into N), tangent vectors at the origin are (N, n).
// Mismatched shapes are programmer errors and panic.
type Manifold interface {
	// Name is "hyperboloid(K=…)" or "euclidean", for logs.
	Name() string

	// ExpO maps tangent vectors at the origin (N,n) to points (N,n+1).
	ExpO(tp *tensor.Tape, v *tensor.Tensor) *tensor.Tensor
	// LogO maps points (N,n+1) to tangent vectors at the origin (N,n).
	LogO(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor
	// ExpX maps tangent vectors v (N,n+1) at the points x (N,n+1) to points.
	ExpX(tp *tensor.Tape, x, v *tensor.Tensor) *tensor.Tensor
	// LogX maps points y (N,n+1) to tangent vectors at x (N,n+1).
	LogX(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor

	// Dist and SqDist return the row-wise distance d(x_i, y_i) or its square,
	// (N,n+1),(N,n+1) -> (N,1).
	Dist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor
	SqDist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor
	// PairDist and PairSqDist return all pairs, (N,n+1),(M,n+1) -> (N,M).
	PairDist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor
	PairSqDist(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor

	// TransportO moves tangent vectors at the origin, given by their spatial
	// coordinates b ((N,n), or (n) for one vector shared by all rows, such as
	// a bias), to the tangent spaces of the points x (N,n+1); result (N,n+1).
	TransportO(tp *tensor.Tape, x, b *tensor.Tensor) *tensor.Tensor
	// Transport moves tangent vectors v (N,n+1) at x to the points y.
	Transport(tp *tensor.Tape, x, y, v *tensor.Tensor) *tensor.Tensor
	// Project returns the point whose spatial part is x's (N,n+1).
	Project(tp *tensor.Tape, x *tensor.Tensor) *tensor.Tensor
	// Inner returns the row-wise inner product (Minkowski for the
	// hyperboloid) of the given rows, (N,n+1),(N,n+1) -> (N,1).
	Inner(tp *tensor.Tape, x, y *tensor.Tensor) *tensor.Tensor

	// Origin returns rows copies of the origin as a (rows, n+1) tensor
	// without gradient.
	Origin(tp *tensor.Tape, rows, n int) *tensor.Tensor
}

var (
	_ Manifold = Hyperboloid{}
	_ Manifold = Euclidean{}
)

// shapeWithCols returns shape with its last dimension replaced by c.
func shapeWithCols(shape []int, c int) ([tensor.MaxDims]int, int) {
	var s [tensor.MaxDims]int
	r := copy(s[:], shape[:len(shape)-1])
	s[r] = c
	return s, r + 1
}

func checkPoints(op string, x *tensor.Tensor) {
	if x.Cols() < 2 {
		panic(fmt.Sprintf("lorentz: %s: points %v need at least 2 columns (time + n ≥ 1 spatial)", op, x.Shape))
	}
}

func checkSameRows(op string, x, y *tensor.Tensor) {
	checkPoints(op, x)
	if x.Cols() != y.Cols() || x.Rows() != y.Rows() {
		panic(fmt.Sprintf("lorentz: %s: shapes %v and %v differ", op, x.Shape, y.Shape))
	}
}
