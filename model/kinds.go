package model

// Truncate is which words a document longer than Config.MaxLen keeps.
type Truncate string

const (
	// TruncateHead keeps the first MaxLen.
	TruncateHead Truncate = "head"
	// TruncateTFIDF keeps the MaxLen with the highest tf-idf weight, in
	// their original order (the Cora files list words sorted by id, so
	// "head" would drop high ids systematically).
	TruncateTFIDF Truncate = "tfidf"
)

// Geometry is the space the documents and topics live in.
type Geometry string

const (
	// Hyperbolic is the Lorentz model of curvature −1/K.
	Hyperbolic Geometry = "hyperbolic"
	// Euclidean is the paper's ablation: maps are identities, distances
	// squared Euclidean.
	Euclidean Geometry = "euclidean"
)

// Features is the [CLS] token's start.
type Features string

const (
	// FeaturesTFIDF adds a learned projection of the document's
	// L2-normalised tf-idf vector (word rows initialised from GloVe when
	// the dataset has them, else random).
	FeaturesTFIDF Features = "tfidf"
	// FeaturesNone leaves the [CLS] a plain learned token.
	FeaturesNone Features = "none"
)

// TreeMode is how the topic tree changes during training.
type TreeMode string

const (
	// TreeGrow grows and prunes the tree during training.
	TreeGrow TreeMode = "grow"
	// TreeFixed keeps the initial tree throughout.
	TreeFixed TreeMode = "fixed"
	// TreeFlat is a root with Branching children and no further levels:
	// flat topics under a shared root.
	TreeFlat TreeMode = "flat"
)

// PruneBy is what growth compares with TreeConfig.SPrune. The zero value
// means PruneBySubtree.
type PruneBy string

const (
	// PruneBySubtree compares the θ mass of the topic and its descendants
	// (the paper).
	PruneBySubtree PruneBy = "subtree"
	// PruneByPath compares the share of the words whose document's path
	// runs through the topic (topictree.PathShares).
	PruneByPath PruneBy = "path"
)
