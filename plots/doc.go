// Package plots draws the figures of an experiment as PNG and SVG with
// gonum.org/v1/plot: learning curves of a training run, grouped ablation bars
// with error bars and the paper's figures, and a 2-D map of documents
// coloured by label (from t-SNE coordinates, package tsne).
//
// Inputs are plain structs, independent of the model. Each builder returns a
// [Figure]; [Figure.Save] writes base.png and base.svg atomically.
//
// Fonts (Liberation Sans) are compiled into gonum/plot, so rendering needs
// neither system fonts nor network access, and the same input gives the same
// bytes.
package plots
