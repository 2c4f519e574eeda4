// Package metrics holds the evaluation measures of the paper's protocol
// (docs/design.md, "Evaluation protocol"), independent of any model: kNN
// classification with Micro-F1 and Macro-F1, ROC-AUC and the per-document link
// prediction AUC, the perplexity exponent, topic coherence (NPMI over a named
// reference corpus), topic diversity and topic-tree statistics.
//
// Conventions:
//   - Embeddings are row-major float32 matrices (N,D): row i is
//     x[i*D:(i+1)*D]. Distances and sums accumulate in float64.
//   - Classification and ranking scores (F1, AUC) are in percent, as in the
//     paper's tables.
//   - Results are deterministic: ties are broken by a stated rule (kNN
//     neighbours by training index, votes by the smallest label), never by
//     map order or scheduling. Functions that run in parallel give the same
//     numbers for any GOMAXPROCS.
//   - Shape mismatches are programmer errors and panic with a "metrics:"
//     message; nothing here reads user input.
package metrics
