package corpus

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"maps"
	"slices"
	"strings"
)

// Fingerprint identifies a corpus as a model saw it: counts and SHA-256
// hashes of its documents (ids and word-id sequences), vocabulary, links
// and labels, of its split into training, validation and test documents,
// and the settings that read it (tokenizer flags and the like, by name, as
// the caller gives them). A model stores the fingerprint of the corpus it
// was trained on (config.json), so that resuming, evaluating or embedding
// with another corpus, or the same file read with other flags, is caught
// and named (Check) instead of silently scoring the wrong documents.
type Fingerprint struct {
	// Hash is the SHA-256 of everything below but Source: equal hashes,
	// equal corpora.
	Hash      string `json:"hash"`
	Documents Part   `json:"documents"`
	Vocab     Part   `json:"vocabulary"`
	Links     Part   `json:"links"`
	// Labels counts the labels (0: unlabelled); its hash covers every
	// document's label and the label names.
	Labels Part      `json:"labels"`
	Split  SplitPart `json:"split"`
	// Settings are how the corpus was read and split, by flag name
	// ("min-df": "2", "split": "paper"); nil when the caller gave none.
	Settings map[string]string `json:"settings,omitempty"`
	// Source says where the corpus came from (a path, or "built-in"), for
	// messages only: the same corpus may sit at another path.
	Source string `json:"source,omitempty"`
}

// Part is one component of a Fingerprint: how many items and a hash of them
// (the first 16 hexadecimal digits of their SHA-256).
type Part struct {
	Count  int    `json:"count"`
	SHA256 string `json:"sha256"`
}

// SplitPart is the split's component: its sizes and a hash of which
// documents are training, validation and test documents.
type SplitPart struct {
	Train  int    `json:"train"`
	Valid  int    `json:"valid"`
	Test   int    `json:"test"`
	SHA256 string `json:"sha256"`
}

// NewFingerprint fingerprints g split by s (nil: no split), read with the
// given settings (may be nil) from source.
func NewFingerprint(g *Graph, s *Split, settings map[string]string, source string) *Fingerprint {
	f := &Fingerprint{Settings: maps.Clone(settings), Source: source}
	h := sha256.New()
	var buf [8]byte
	put := func(h hash.Hash, x int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(x))
		h.Write(buf[:])
	}
	putString := func(h hash.Hash, s string) {
		put(h, int64(len(s)))
		h.Write([]byte(s))
	}
	putIDs := func(h hash.Hash, ids []int32) {
		put(h, int64(len(ids)))
		b := make([]byte, 4*len(ids))
		for i, x := range ids {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
		h.Write(b)
	}
	sum := func(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil))[:16] }

	n := g.NumDocs()
	h.Reset()
	for i := range n {
		if g.DocIDs != nil {
			putString(h, g.DocIDs[i])
		}
		putIDs(h, g.Doc(i))
	}
	f.Documents = Part{Count: n, SHA256: sum(h)}

	h.Reset()
	for _, w := range g.Vocab {
		putString(h, w)
	}
	f.Vocab = Part{Count: len(g.Vocab), SHA256: sum(h)}

	h.Reset()
	for _, l := range g.Links {
		put(h, int64(l[0]))
		put(h, int64(l[1]))
	}
	f.Links = Part{Count: len(g.Links), SHA256: sum(h)}

	h.Reset()
	if g.Labels != nil {
		putIDs(h, g.Labels)
		for _, name := range g.LabelNames {
			putString(h, name)
		}
	}
	f.Labels = Part{Count: g.NumLabels(), SHA256: sum(h)}

	h.Reset()
	if s != nil {
		putIDs(h, s.Train)
		putIDs(h, s.Valid)
		putIDs(h, s.Test)
		f.Split = SplitPart{Train: len(s.Train), Valid: len(s.Valid), Test: len(s.Test)}
	}
	f.Split.SHA256 = sum(h)

	h.Reset()
	for _, p := range []Part{f.Documents, f.Vocab, f.Links, f.Labels} {
		put(h, int64(p.Count))
		putString(h, p.SHA256)
	}
	put(h, int64(f.Split.Train))
	put(h, int64(f.Split.Valid))
	put(h, int64(f.Split.Test))
	putString(h, f.Split.SHA256)
	for _, k := range slices.Sorted(maps.Keys(f.Settings)) {
		putString(h, k)
		putString(h, f.Settings[k])
	}
	f.Hash = hex.EncodeToString(h.Sum(nil))
	return f
}

// Difference is one way two fingerprints differ: What names the component
// ("documents", "vocabulary", "links", "labels", "split", "settings") and
// Detail says how.
type Difference struct {
	What, Detail string
}

func (d Difference) String() string { return d.What + ": " + d.Detail }

// Diff lists how got differs from f, the fingerprint a model recorded.
// Settings are compared only when both fingerprints carry them.
func (f *Fingerprint) Diff(got *Fingerprint) []Difference {
	var ds []Difference
	part := func(what, unit string, a, b Part) {
		switch {
		case a.Count != b.Count:
			ds = append(ds, Difference{what, fmt.Sprintf("%d %s, here %d", a.Count, unit, b.Count)})
		case a.SHA256 != b.SHA256:
			ds = append(ds, Difference{what, fmt.Sprintf("%d %s as here, but other content (sha256 %s, here %s)", a.Count, unit, a.SHA256, b.SHA256)})
		}
	}
	part("documents", "documents", f.Documents, got.Documents)
	part("vocabulary", "words", f.Vocab, got.Vocab)
	part("links", "links", f.Links, got.Links)
	part("labels", "labels", f.Labels, got.Labels)
	if a, b := f.Split, got.Split; a != b {
		detail := fmt.Sprintf("%d/%d/%d training/validation/test documents, here %d/%d/%d", a.Train, a.Valid, a.Test, b.Train, b.Valid, b.Test)
		if a.Train == b.Train && a.Valid == b.Valid && a.Test == b.Test {
			detail = fmt.Sprintf("as many training/validation/test documents (%d/%d/%d), but other ones", a.Train, a.Valid, a.Test)
		}
		ds = append(ds, Difference{"split", detail})
	}
	if f.Settings != nil && got.Settings != nil {
		var sd []string
		for _, k := range slices.Sorted(maps.Keys(mergeKeys(f.Settings, got.Settings))) {
			a, okA := f.Settings[k]
			b, okB := got.Settings[k]
			switch {
			case okA && okB && a != b:
				sd = append(sd, fmt.Sprintf("--%s %s, here %s", k, a, b))
			case okA && !okB:
				sd = append(sd, fmt.Sprintf("--%s %s, here not used", k, a))
			case !okA && okB:
				sd = append(sd, fmt.Sprintf("--%s not used, here %s", k, b))
			}
		}
		if len(sd) > 0 {
			ds = append(ds, Difference{"settings", strings.Join(sd, ", ")})
		}
	}
	return ds
}

func mergeKeys(a, b map[string]string) map[string]bool {
	m := make(map[string]bool, len(a)+len(b))
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// MismatchError reports a corpus other than the one a model recorded.
type MismatchError struct {
	Want, Got *Fingerprint
	Diffs     []Difference
}

func (e *MismatchError) Error() string {
	parts := make([]string, len(e.Diffs))
	for i, d := range e.Diffs {
		parts[i] = d.String()
	}
	src := ""
	if e.Want.Source != "" {
		src = " (" + e.Want.Source + ")"
	}
	return fmt.Sprintf("corpus: not the corpus the model was trained on%s: %s", src, strings.Join(parts, "; "))
}

// Check returns nil when got is the corpus f records, or a *MismatchError
// listing the differences, leaving out the components named in ignore (an
// embedding does not depend on the split, for instance).
func (f *Fingerprint) Check(got *Fingerprint, ignore ...string) error {
	var ds []Difference
	for _, d := range f.Diff(got) {
		if !slices.Contains(ignore, d.What) {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return nil
	}
	return &MismatchError{Want: f, Got: got, Diffs: ds}
}
