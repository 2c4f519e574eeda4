// Package tsne lays out points in two (or a few) dimensions with exact
// t-distributed stochastic neighbour embedding (van der Maaten and Hinton,
// "Visualizing Data using t-SNE", JMLR 2008), for the few thousand documents
// of a test split or a small corpus.
//
// # Method
//
// Input affinities: for each point i a Gaussian over the others,
// p_{j|i} ∝ exp(-β_i d²_ij), with β_i found by bisection so that the entropy
// of row i equals log(perplexity) (natural log). The joint affinities are
// P = (P_{j|i} + P_{i|j}) / (2N), which sum to one.
//
// Output similarities: a Student-t kernel w_ij = 1/(1+|y_i-y_j|²),
// q_ij = w_ij / Z with Z = Σ_{k≠l} w_kl. The objective KL(P‖Q) has gradient
//
//	∂C/∂y_i = 4 Σ_j (p_ij − q_ij) w_ij (y_i − y_j)
//	        = 4 [ Σ_j p_ij w_ij (y_i − y_j) − (1/Z) Σ_j w²_ij (y_i − y_j) ].
//
// The second form needs Z only at the end, so one pass over the pairs
// computes, per row, an attractive sum, a repulsive sum and a partial Z.
//
// # Optimisation (as in the reference implementation, bhtsne)
//
// Y starts as N(0, 10⁻⁴) from the seeded source. Gradient descent with
// momentum 0.5 for the first 250 iterations and 0.8 afterwards, per-
// coordinate adaptive gains (+0.2 when the gradient changes sign against the
// update, ×0.8 otherwise, floor 0.01), P multiplied by the early exaggeration
// (12) for the first 250 iterations, and Y re-centred after every step.
// bhtsne drops the factor 4 from the gradient and uses η = 200; here the
// gradient is the true one and the default learning rate is
// max(N/(12·4), 50) (Belkina et al. 2019, as in scikit-learn's "auto"), which
// equals bhtsne's step for N ≤ 2400 and grows with N beyond that.
//
// # Cost and determinism
//
// Exact t-SNE holds P densely: N² float64 (72 MB for N = 3000) and O(N²)
// work per iteration: about 20 ms of CPU per iteration for N = 3000, so a
// default run (1000 iterations) costs about 23 s of CPU, roughly 12 s on two
// free cores (BenchmarkEmbed measured 46 s wall on two cores shared with
// other jobs), and N = 618 under 2 s.
//
// Rows are split among goroutines, but each row's sums are accumulated by
// one goroutine in a fixed order and the partial Z values are added in row
// order afterwards, so the result depends only on the input and the seed,
// not on the number of workers or on scheduling.
//
// # Hyperbolic embeddings
//
// Points on a hyperboloid can be passed either as tangent vectors log_o(x) to
// [Embed], or as their matrix of squared geodesic distances to
// [EmbedDistances]; the latter keeps the geometry exactly.
package tsne
