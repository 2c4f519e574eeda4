package train

import "fmt"

// Nesting is how a training step reads the documents' neighbours.
type Nesting string

const (
	// NestingFull encodes the neighbours in the same pass; gradients flow
	// through them (the paper). It reaches one hop.
	NestingFull Nesting = "full"
	// NestingCache reads the neighbours' per-layer [CLS] from a cache
	// refreshed from the current weights at every epoch start; no gradient
	// through them.
	NestingCache Nesting = "cache"
)

// TopicInit is how the topic side starts, before the first step. The zero
// value means TopicInitRandom.
type TopicInit string

const (
	// TopicInitFit is TopicInitKMeans, then σ's radius and temperature
	// calibrated to the documents' distances from their topics
	// (topicfit.Calibrate; it overrides the configured ones), then
	// Options.TopicWarmup steps fitting the decoder U alone to the
	// documents' words with the topics held at their clusters
	// (topicfit.Fit).
	TopicInitFit TopicInit = "fit"
	// TopicInitKMeans places the topics at a hierarchical k-means
	// clustering of the training documents' embeddings (topicfit.Place).
	TopicInitKMeans TopicInit = "kmeans"
	// TopicInitRandom leaves the topics as built, with the configured σ
	// (the paper).
	TopicInitRandom TopicInit = "random"
)

// Select is which state Run leaves the model in. The zero value means
// SelectBest.
type Select string

const (
	// SelectBest keeps the validated state of highest validation score
	// (EpochLog.Score).
	SelectBest Select = "best"
	// SelectLast keeps the final state; validation then only records the
	// learning curve.
	SelectLast Select = "last"
)

// SimilarityFit is which end-of-training fit of σ's radius and temperature
// to the training documents' words runs (topicfit.FitSimilarity). The
// zero value is none; "none", as earlier builds and the command spell it,
// reads as the zero value.
type SimilarityFit string

const (
	// SimilarityFitShared fits one r and t for the path and level σ, as
	// training has them.
	SimilarityFitShared SimilarityFit = "shared"
	// SimilarityFitLevels gives the level σ its own r and t.
	SimilarityFitLevels SimilarityFit = "levels"
)

// String is the fit's name, "none" for the zero value.
func (f SimilarityFit) String() string {
	if f == "" {
		return "none"
	}
	return string(f)
}

// Set reads a fit's name (flag.Value); "none" and "" are the zero value.
func (f *SimilarityFit) Set(s string) error {
	switch v := SimilarityFit(s); v {
	case "", "none":
		*f = ""
	case SimilarityFitShared, SimilarityFitLevels:
		*f = v
	default:
		return fmt.Errorf("train: similarity fit %q: want none, shared or levels", s)
	}
	return nil
}

// UnmarshalText reads a fit's name as Set does.
func (f *SimilarityFit) UnmarshalText(b []byte) error { return f.Set(string(b)) }
