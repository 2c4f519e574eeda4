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
// # Concurrency
//
// A Tree is not safe for concurrent mutation. [Tables] are immutable: a
// structural change builds new tables, so tables captured by an op recorded on
// a tape stay valid for that op's backward pass.
package topictree
