// Package optim holds the optimisers that train gtformer's parameters:
// Adam and AdamW over a set of named parameters that may grow, shrink and
// change shape between steps (the topic tree gains and loses topics), clipping
// by global gradient norm, and learning-rate schedules.
//
// # State
//
// Optimiser state is keyed by parameter name. Adding a parameter starts it
// with zero moments; removing one drops its state; RemapRows carries the
// moments of surviving rows of a per-topic matrix into its new shape, with
// zero moments for new rows.
//
// The update counts that drive Adam's bias correction are kept per leading
// row (per topic for a (T, n) matrix, per element for a (T) vector), not per
// optimiser. A row that appeared at step 1000 is then corrected like a fresh
// parameter. With one global count t its zero moments would be corrected by
// 1/(1-β^t) ≈ 1 instead of 1/(1-β), and its first update would be
// (1-β₁)/√(1-β₂) ≈ 3.2 times the learning rate (β₁ = 0.9, β₂ = 0.999) instead
// of 1 times. PyTorch keeps a count per parameter for this reason; per row is
// the same idea at the granularity at which the tree changes.
//
// # Precision
//
// Parameters, gradients and the moments m and v are stored as float32; each
// element's update is computed in float64 and rounded once when stored.
// float32 moments halve the optimiser's memory and bandwidth against float64
// (the step is memory-bound: 10M parameters move 280 MB per step as it is),
// match what PyTorch keeps for float32 parameters, and their relative
// rounding (6e-8) is far below the noise of a stochastic gradient. Doing the
// arithmetic in float64 keeps g² from underflowing (g = 1e-20 gives 1e-40,
// below float32's normal range) and the bias corrections from losing digits
// before that single rounding.
//
// # Checkpoints
//
// State returns m, v and the per-row counts as named float32 tensors
// ("adam.m/<param>", "adam.v/<param>", "adam.t/<param>"), and StepCount the
// number of Step calls. They are stored exactly (float32 represents counts
// up to 2^24; counts saturate there, when 1-β^t no longer changes in any
// digit that matters), so LoadState into a fresh optimiser continues a run
// bit for bit. SaveState and LoadStateFile do this through a safetensors file.
package optim
