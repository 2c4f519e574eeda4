// Package topictree holds GTFormer's topic tree: the structure (topics with
// stable ids, parents, ordered children, levels), the index tables that let
// the model run the Doubly-RNN and the stick-breaking construction as batched
// tensor ops, the fused differentiable stick-breaking op that turns
// similarities σ into the document-topic distribution θ, and the growth and
// pruning rule of the paper's section 4.3.
//
// # Ids and rows
//
// Every topic has an integer id that is never reused within a run (removed
// ids stay retired, and the counter travels with the JSON form), so logs and
// checkpoints name topics unambiguously. Per-topic tensors are indexed by a
// dense row instead: rows follow breadth-first order (level by level; within
// a level, parents in row order and each parent's children in sibling order),
// so the root is row 0 and a parent's row is always smaller than its
// children's and a left sibling's smaller than its right sibling's. Rows
// change when the tree changes; [UpdateResult] carries the mapping.
//
// # Depth
//
// Depth counts levels: the root alone has depth 1; the default initial tree
// (root, 3 children, 9 grandchildren) has depth 3. Levels are numbered from 0
// at the root.
//
// # Distributions
//
// [StickBreak] (and [Theta], its training variant) maps σ_topic (B,T) and
// σ_level (B,H) to θ (B,T): stick-breaking over each parent's children in
// sibling order and over levels, the last child and the last level of each
// path taking the rest, so π, δ and θ each sum to one per document even when
// leaves sit at different depths (proof in stickbreak.go). The model computes
// the tree embedding e_i = exp_o(θ_i · log_o Z) with a matmul θ (B,T) @ log_o Z
// (T,n).
//
// # Growth and pruning
//
// [ShareAccumulator] gathers s_t = Σ_i |d_i| θ_it / Σ_i |d_i| over the
// training documents; [Tree.Update] prunes every non-root topic whose subtree
// share is below s_prune, then gives one new last child to every surviving
// non-leaf topic with s_t > s_add, within the limits, and returns the changes
// and the old→new row mapping. Under the paper's rule only non-leaf topics
// grow, so the tree never gets deeper than the initial one;
// [UpdateOptions].GrowLeaves lets leaves grow down to Limits.MaxDepth.
//
// # Concurrency
//
// A Tree is not safe for concurrent mutation. [Tables] are immutable: a
// structural change builds new tables, so tables captured by an op recorded on
// a tape stay valid for that op's backward pass.
package topictree
