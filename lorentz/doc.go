// Package lorentz holds differentiable operations on the hyperboloid (Lorentz)
// model of hyperbolic space with curvature −1/K, and their Euclidean
// counterparts behind the same Manifold interface (the paper's ablation).
//
// # Conventions
//
// A point of H^{n,K} is a row of n+1 values x = (x0, x1, …, xn) with
// ⟨x,x⟩_L = −x0² + Σ xk² = −K and x0 > 0; the origin is o = (√K, 0, …, 0).
// A batch of N points is a tensor of shape (N, n+1) (any leading dimensions
// are flattened into rows). A tangent vector at the origin has time
// coordinate 0 and is stored as its n spatial coordinates, shape (N, n).
// A tangent vector at a general point x is stored as a full (N, n+1) row.
//
// Every op reads only the spatial part of its points and recomputes the time
// coordinate x0 = sqrt(K + |x_s|²) in float64: a stored float32 x0 of a point
// at geodesic radius 12·√K is about 8·10⁴·√K and carries an absolute error of
// about 5·10⁻³, which a Minkowski product ⟨x,y⟩_L = −x0y0 + … amplifies into
// an error far larger than K. For the same reason, tangent vectors at a point
// x are read by their spatial part only: the time coordinate is implied by
// tangency ⟨x,v⟩_L = 0, i.e. v0 = x_s·v_s / x0. Gradients therefore flow
// into the spatial coordinates only; the time coordinate of an input receives
// zero gradient (the outputs do not depend on it), and the gradient arriving
// at an output's time coordinate is passed on through y0 = sqrt(K + |y_s|²).
//
// Each op is a fused kernel: it converts its float32 inputs to float64,
// computes the result and its analytic derivative (written in a comment beside
// the code) in float64, and stores float32. The same kernels are generic over
// float32/float64, which lets the tests check every backward against central
// finite differences of the identical forward code in float64.
//
// # Numerical safeguards
//
// The forms are chosen so that no step divides by a quantity that can vanish
// and no step subtracts nearly equal large numbers:
//
//   - exp_o(v) = sinhc(|v|/√K)·v and log_o(x) = asinhc(|x_s|/√K)·x_s with
//     sinhc(a) = sinh(a)/a and asinhc(a) = asinh(a)/a, both smooth and equal
//     to 1 at 0: no division by |v| and no arcosh(1) singularity.
//   - The squared chord c² = ‖x−y‖_L² = 4K·s is computed from the hyperbolic
//     law of cosines in half-angle form,
//     s = sinh²((a−b)/2) + sinh(a)·sinh(b)·|x̂−ŷ|²/4,
//     a = asinh(|x_s|/√K), b = asinh(|y_s|/√K), x̂ = x_s/|x_s|, ŷ = y_s/|y_s|,
//     a sum of two non-negative terms, each computed from differences
//     (a−b, x̂−ŷ); the distance is d = 2√K·asinh(√s). The Minkowski form
//     x0y0 − x_s·y_s loses all digits for nearby far-out points.
//   - log_x(y) = (β / sinh β)·(y − cosh(β)·x) with β = d/√K, where
//     cosh β = 1 + 2s, so y − cosh(β)x = (y − x) − 2s·x is formed from the
//     difference y − x; the time difference y0 − x0 is formed as
//     (y_s−x_s)·(y_s+x_s)/(x0+y0).
//   - Parallel transport uses PT_{x→y}(v) = v + ⟨y−x,v⟩_L/(2K(1+s))·(x+y),
//     whose denominator is at least 2K (the paper's form divides by d²).
//
// The constants are:
//
//	MaxTangentNorm = 12     cap on ‖v‖_L/√K before exp (see below).
//	seriesCut      = 1e-2   below this argument the derivative ratios
//	                        S'(a)/a, A'(a)/a, f'(b)/b switch to their Taylor
//	                        series: the closed forms cancel to a relative
//	                        error of about 1e-16/a² (1e-12 at the cut), the
//	                        three-term series are accurate to about a⁶ (1e-12).
//	r > 0                   the unit vector x_s/|x_s| is formed only for r > 0
//	                        and is 0 at the origin, where every term using it is
//	                        multiplied by r or by a coefficient that vanishes
//	                        with r. A nonzero float32 vector has r ≥ 1.4e-45, so
//	                        1/r ≤ 7e44 is finite in float64: no larger minimum
//	                        is needed and none would be harmless (it would
//	                        bias distances between tiny points).
//	s > 0                   the distance gradient (√K/(√s·√(1+s)))·∂s is 0/0
//	                        only at s = 0, i.e. coincident points, where d is not
//	                        differentiable; the op returns the zero subgradient
//	                        there. For s > 0 the ratio is finite because ∂s is
//	                        O(√s) and both are computed without cancellation.
//	                        The squared distance has the smooth derivative
//	                        4K·asinhc(√s)/√(1+s)·∂s and needs no guard.
//
// Why MaxTangentNorm = 12: a point at geodesic radius α√K has coordinates of
// size √K·sinh α. Float32 keeps 24 bits, so one unit in the last place of a
// spatial coordinate moves the point sideways by about 2⁻²⁴·sinh(α)·√K. At
// α = 12 that is 5·10⁻³·√K, the coarsest resolution we accept for distances
// between far-out points; at α = 30 (a common cap elsewhere) it would be
// 6·10⁵·√K, i.e. angular information is gone entirely. Overflow is far away
// (float32 x0 overflows near α = 88, float64 cosh near α = 710). In practice
// σ = 1/(1+exp(d²)) is already 0 in float32 for d > 10, so radii up to 12√K
// lose no modelling range. Beyond the cap, exp_x(v) = exp_x(12·√K·v/‖v‖_L): the
// gradient is the exact derivative of this clipped map (zero along v, the
// usual behaviour of a norm clip).
//
// # Euclidean ablation
//
// Euclidean{} implements the same interface with every map an identity: a
// Euclidean point is stored as the row [0 | p] so that shapes match the
// hyperboloid's ((N,n) ↔ (N,n+1)); coordinate 0 is ignored on input and
// written as 0 on output. ExpO(v) = [0|v], LogO([·|p]) = p, ExpX(x,v) = [0|x+v],
// LogX(x,y) = [0|y−x], transports are identities, SqDist(x,y) = |x_s−y_s|²
// (the squared Euclidean distance of the paper's ablation and link
// likelihood), Dist = |x_s−y_s| and Inner is the Euclidean dot product of the
// spatial parts.
package lorentz
