package metrics

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Docs is a collection of documents given as word-id sequences.
// *corpus.Graph satisfies it; Subset selects some of its documents.
type Docs interface {
	NumDocs() int
	Doc(i int) []int32
}

// DocList is a Docs held as one slice per document.
type DocList [][]int32

// NumDocs is the number of documents.
func (d DocList) NumDocs() int { return len(d) }

// Doc returns document i.
func (d DocList) Doc(i int) []int32 { return d[i] }

// Subset returns the documents of docs with the given ids, in that order.
func Subset(docs Docs, ids []int32) Docs { return subset{docs, ids} }

type subset struct {
	docs Docs
	ids  []int32
}

func (s subset) NumDocs() int      { return len(s.ids) }
func (s subset) Doc(i int) []int32 { return s.docs.Doc(int(s.ids[i])) }

// PerplexityExponent returns the log-perplexity of documents under a topic
// mixture: −Σ_d Σ_w n_dw log p(w|d) / Σ_d Σ_w n_dw (natural log), where
// p(w|d) = Σ_t θ_dt β_tw. theta is (N,T) with one row per document of docs,
// beta is (T,V). The perplexity itself is exp of the result. A word of
// probability zero makes the result +Inf; empty input gives NaN.
func PerplexityExponent(theta, beta []float32, nTopics int, docs Docs) float64 {
	return PerplexityExponentMix(theta, beta, nTopics, docs, nil)
}

// PerplexityExponentMix is PerplexityExponent with p(w|d) = mix(q, w) for
// q = Σ_t θ_dt β_tw, mix nil meaning p = q: a model's word distribution
// that adds something to the topic mixture (gtformer's background
// mixture, model.WordMix.Func).
func PerplexityExponentMix(theta, beta []float32, nTopics int, docs Docs, mix func(q float64, w int32) float64) float64 {
	n := docs.NumDocs()
	if nTopics <= 0 || len(theta) != n*nTopics || len(beta)%nTopics != 0 {
		panic(fmt.Sprintf("metrics: PerplexityExponent: theta %d, beta %d values for %d docs, %d topics", len(theta), len(beta), n, nTopics))
	}
	V := len(beta) / nTopics
	var nll, tokens float64
	for d := range n {
		th := theta[d*nTopics : (d+1)*nTopics]
		for _, w := range docs.Doc(d) {
			if int(w) < 0 || int(w) >= V {
				panic(fmt.Sprintf("metrics: PerplexityExponent: word %d outside vocabulary of %d", w, V))
			}
			var p float64
			for t, v := range th {
				p += float64(v) * float64(beta[t*V+int(w)])
			}
			if mix != nil {
				p = mix(p, w)
			}
			nll -= math.Log(p)
			tokens++
		}
	}
	if tokens == 0 {
		return math.NaN()
	}
	return nll / tokens
}

// TopWords returns, for each topic row of beta (T,V), the ids of its n most
// probable words, most probable first; equal probabilities are ordered by
// word id. n is clamped to V.
func TopWords(beta []float32, nTopics, n int) [][]int32 {
	if nTopics <= 0 || len(beta)%nTopics != 0 {
		panic(fmt.Sprintf("metrics: TopWords: %d values for %d topics", len(beta), nTopics))
	}
	V := len(beta) / nTopics
	n = min(n, V)
	out := make([][]int32, nTopics)
	ids := make([]int32, V)
	for t := range out {
		row := beta[t*V : (t+1)*V]
		for w := range ids {
			ids[w] = int32(w)
		}
		slices.SortFunc(ids, func(a, b int32) int {
			if c := cmp.Compare(row[b], row[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		out[t] = slices.Clone(ids[:n])
	}
	return out
}

// DefaultNPMIWords and DefaultDiversityWords are the list lengths of the
// paper's coherence (top-10) and diversity (top-25) measures.
const (
	DefaultNPMIWords      = 10
	DefaultDiversityWords = 25
)

// TopicDiversity returns the number of distinct words among all topics' top-n
// lists divided by the total length of those lists (n·T when every list has n
// words), in [0,1]. Lists longer than n are cut to n. It returns NaN when
// there are no words.
func TopicDiversity(topics [][]int32, n int) float64 {
	seen := map[int32]bool{}
	total := 0
	for _, top := range topics {
		top = top[:min(n, len(top))]
		for _, w := range top {
			seen[w] = true
		}
		total += len(top)
	}
	if total == 0 {
		return math.NaN()
	}
	return float64(len(seen)) / float64(total)
}

// Reference is a corpus against which topic coherence is measured, by
// document co-occurrence: p(w) is the fraction of its documents that contain
// w, p(w,w') the fraction that contain both. Its Name is printed beside the
// scores, since NPMI depends on the reference corpus.
type Reference struct {
	Name string
	n    int               // number of documents
	post map[int32][]int32 // word -> sorted ids of the documents holding it
}

// NewReference indexes docs (each word counted once per document) for NPMI.
// The protocol's default reference is the training documents:
//
//	ref := metrics.NewReference("training documents", metrics.Subset(g, split.Train))
//
// with g a *corpus.Graph. Every word is indexed so one Reference serves any
// number of topic sets.
func NewReference(name string, docs Docs) *Reference {
	r := &Reference{Name: name, n: docs.NumDocs(), post: map[int32][]int32{}}
	for d := range r.n {
		for _, w := range docs.Doc(d) {
			p := r.post[w]
			if len(p) > 0 && p[len(p)-1] == int32(d) {
				continue // already counted for this document
			}
			r.post[w] = append(p, int32(d))
		}
	}
	return r
}

// NumDocs is the number of documents in the reference corpus.
func (r *Reference) NumDocs() int { return r.n }

// DocFreq returns the number of reference documents containing w.
func (r *Reference) DocFreq(w int32) int { return len(r.post[w]) }

// CoDocFreq returns the number of reference documents containing both a and b.
func (r *Reference) CoDocFreq(a, b int32) int {
	pa, pb := r.post[a], r.post[b]
	n := 0
	for i, j := 0, 0; i < len(pa) && j < len(pb); {
		switch {
		case pa[i] < pb[j]:
			i++
		case pa[i] > pb[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// PairNPMI is the normalised pointwise mutual information of two words,
//
//	NPMI(w,w') = ln( p(w,w') / (p(w) p(w')) ) / −ln p(w,w'),
//
// with p(w) = D(w)/D and p(w,w') = D(w,w')/D, D(·) counting reference
// documents. It lies in [−1,1]; the log base cancels in the ratio (natural
// log here). A pair that never co-occurs scores −1 (the limit as p(w,w')→0);
// a pair present in every document (p(w,w') = 1, where the formula is 0/0)
// scores 1, the limit for words that always co-occur.
func (r *Reference) PairNPMI(a, b int32) float64 {
	co := r.CoDocFreq(a, b)
	if co == 0 {
		return -1
	}
	if co == r.n {
		return 1
	}
	n := float64(r.n)
	pab := float64(co) / n
	pa, pb := float64(r.DocFreq(a))/n, float64(r.DocFreq(b))/n
	return math.Log(pab/(pa*pb)) / -math.Log(pab)
}

// NPMI returns each topic's coherence, the mean PairNPMI over all pairs of
// its top-n words (45 pairs for the paper's n = 10), and the mean over
// topics. Lists longer than n are cut to n; a topic with fewer than two words
// scores NaN and is left out of the mean.
func (r *Reference) NPMI(topics [][]int32, n int) (perTopic []float64, mean float64) {
	perTopic = make([]float64, len(topics))
	counted := 0
	for t, top := range topics {
		top = top[:min(n, len(top))]
		var s float64
		pairs := 0
		for i := range top {
			for j := i + 1; j < len(top); j++ {
				s += r.PairNPMI(top[i], top[j])
				pairs++
			}
		}
		if pairs == 0 {
			perTopic[t] = math.NaN()
			continue
		}
		perTopic[t] = s / float64(pairs)
		mean += perTopic[t]
		counted++
	}
	if counted == 0 {
		return perTopic, math.NaN()
	}
	return perTopic, mean / float64(counted)
}

// CompletionSeed fixes the halves of the document-completion perplexity
// (CompletionSplit), so every model and baseline is scored on the same
// words.
const CompletionSeed = 0x636f6d70

// CompletionSplit divides every document of docs into an observed and a
// held-out half for document-completion perplexity (Wallach et al., 2009,
// "Evaluation methods for topic models"; the held-out form most topic-model
// papers report): a document's token positions are shuffled (seeded, per
// document) and the first ⌈n/2⌉ are observed, the rest held out, each half
// keeping the tokens' original order. A document of one token is observed
// whole and holds nothing out.
func CompletionSplit(docs Docs, seed uint64) (observed, heldOut DocList) {
	n := docs.NumDocs()
	observed, heldOut = make(DocList, n), make(DocList, n)
	var pos []int
	for i := range n {
		d := docs.Doc(i)
		pos = pos[:0]
		for p := range d {
			pos = append(pos, p)
		}
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		rng.Shuffle(len(pos), func(a, b int) { pos[a], pos[b] = pos[b], pos[a] })
		h := (len(d) + 1) / 2
		obs, held := slices.Clone(pos[:h]), slices.Clone(pos[h:])
		slices.Sort(obs)
		slices.Sort(held)
		for _, p := range obs {
			observed[i] = append(observed[i], d[p])
		}
		for _, p := range held {
			heldOut[i] = append(heldOut[i], d[p])
		}
	}
	return observed, heldOut
}
