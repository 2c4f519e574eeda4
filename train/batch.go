package train

import (
	"math/rand/v2"
	"slices"

	"github.com/gtformer/gtformer/features"
	"github.com/gtformer/gtformer/model"
)

// refreshCache rebuilds the neighbour cache (cache nesting) from the
// current weights, as every epoch starts with it: the rows of all training
// documents, or with StepsPerEpoch those the epoch's batches read (links
// and nbrTable, k per document, are the epoch's).
func (t *Trainer) refreshCache(links [][2]int32, nbrTable []int32, k int) {
	if t.cache == nil {
		return
	}
	defer t.Env.Phases.Start("cache refresh")()
	docs := t.H.Train
	if t.Opt.StepsPerEpoch > 0 {
		// An epoch of a few hundred steps on a large graph reads a
		// small part of the cache: refresh only that part.
		docs = t.readDocs(links, nbrTable, k)
	}
	t.Model.RefreshNeighbors(t.cache, t.In, docs, t.trainNeighbors, t.Opt.MaxNbrs, t.Opt.EmbedBatch)
}

// trainNeighbors lists d's neighbours among the documents training sees
// (the training documents outside validation).
func (t *Trainer) trainNeighbors(d int32) []int32 { return t.H.TrainNeighbors32(d) }

func (t *Trainer) stepsPerEpoch() int64 {
	if t.Opt.StepsPerEpoch > 0 {
		return int64(t.Opt.StepsPerEpoch)
	}
	return int64((len(t.H.TrainLinks) + t.Opt.BatchLinks - 1) / t.Opt.BatchLinks)
}

// epochLinks returns epoch e's training links in step order. By default
// that is every training link, shuffled by (Seed, e). With StepsPerEpoch
// it is the epoch's StepsPerEpoch·BatchLinks links of one stream made of
// successive passes over the training links, pass p shuffled by (Seed, p):
// every link comes once before any comes twice, and an epoch's links
// depend only on its number (a resumed run draws the same ones).
func (t *Trainer) epochLinks(e int) [][2]int32 {
	all := t.H.TrainLinks
	if t.Opt.StepsPerEpoch == 0 {
		return shuffledLinks(all, t.Opt.Seed, int64(e))
	}
	n := int64(len(all))
	want := int64(t.Opt.StepsPerEpoch) * int64(t.Opt.BatchLinks)
	out := make([][2]int32, 0, want)
	for pos := int64(e) * want; int64(len(out)) < want; {
		pass, off := pos/n, pos%n
		take := min(n-off, want-int64(len(out)))
		out = append(out, shuffledLinks(all, t.Opt.Seed, pass)[off:off+take]...)
		pos += take
	}
	return out
}

// shuffledLinks returns a copy of links shuffled by (seed, pass).
func shuffledLinks(links [][2]int32, seed uint64, pass int64) [][2]int32 {
	out := slices.Clone(links)
	rng := rand.New(rand.NewPCG(seed, uint64(pass)<<1|1))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// readDocs returns the documents whose cache rows the batches of links
// read: the sampled neighbours (nbrTable, k per document) of the links'
// ends, and with MaskTargets every training neighbour of those ends (and
// the ends themselves), from which masked slots are refilled. Sorted,
// distinct.
func (t *Trainer) readDocs(links [][2]int32, nbrTable []int32, k int) []int32 {
	var docs []int32
	for _, l := range links {
		for _, d := range l {
			docs = append(docs, nbrTable[int(d)*k:int(d+1)*k]...)
			if t.Opt.MaskTargets {
				docs = append(docs, d)
				docs = append(docs, t.trainNeighbors(d)...)
			}
		}
	}
	slices.Sort(docs)
	return slices.Compact(docs)
}

// batch builds one step's batch from a slice of training links
// (model.LinkBatch: both ends are centres; each link gives two anchors whose
// candidates are all centres but the anchor and its other known training
// neighbours), then hides the targets (MaskTargets) and sets the labels of
// the supervised head (−1 for held-out documents).
func (t *Trainer) batch(links [][2]int32, nbrTable []int32, k int) *model.Batch {
	b := model.LinkBatch(links, nbrTable, k, func(d int32) []int32 { return t.H.TrainNeighbors(int(d)) })
	if t.Opt.MaskTargets {
		t.maskTargets(b, links)
	}
	if t.Model.Cfg.Supervised {
		b.Labels = make([]int32, len(b.Centres))
		for i, d := range b.Centres {
			b.Labels[i] = -1
			if t.G.Labels != nil && !t.H.IsTest[d] && !t.S.IsTest[d] {
				b.Labels[i] = t.G.Labels[d]
			}
		}
	}
	return b
}

// maskTargets hides each of the batch's target links from the inputs of
// its two ends: a centre's sampled neighbour slots holding one of its
// partners in this batch are refilled from its other neighbours (itself
// when it has none left, as an isolated document), and its hop features are
// recomputed without those links (features.Without). At test time a held-out
// link is in nobody's inputs; without the mask a training link sits in both
// ends' neighbours and features, and the graph loss can be met by reading
// it there instead of by placing the documents well.
func (t *Trainer) maskTargets(b *model.Batch, links [][2]int32) {
	partners := map[int32][]int32{}
	for _, l := range links {
		partners[l[0]] = append(partners[l[0]], l[1])
		partners[l[1]] = append(partners[l[1]], l[0])
	}
	k := b.Nbrs.K
	rng := rand.New(rand.NewPCG(t.Opt.Seed^0x6d61736b, uint64(t.State.Step)))
	in := t.In
	if in.Hop != nil {
		b.Hop = make([]float32, len(b.Centres)*in.HopWidth)
	}
	var rest []int32
	for i, d := range b.Centres {
		drop := partners[d]
		nbrs := t.trainNeighbors(d)
		rest = rest[:0]
		for _, n := range nbrs {
			if !slices.Contains(drop, n) {
				rest = append(rest, n)
			}
		}
		for j := i * k; j < (i+1)*k; j++ {
			if !slices.Contains(drop, b.Nbrs.Docs[j]) {
				continue
			}
			if len(rest) == 0 {
				b.Nbrs.Docs[j] = d
			} else {
				b.Nbrs.Docs[j] = rest[rng.IntN(len(rest))]
			}
		}
		if b.Hop != nil {
			w := in.HopWidth
			features.Without(in.Hop, in.HopWidth/(t.Model.Cfg.FeatureHops+1), t.Model.Cfg.FeatureHops, d, nbrs, drop, b.Hop[i*w:(i+1)*w])
		}
	}
}
