package model

import "slices"

// LinkBatch builds one step's batch from a slice of training links, as the
// trainer does (the one owner of that construction; bench measures the same
// batch): both ends of each link are centres, in order of first appearance;
// each link gives two anchors, one per direction, whose positive is the
// other end; an anchor's admissible candidates are all centres but itself
// and its other known neighbours (known(d): d's neighbours, sorted
// ascending); each centre's neighbour slots are its k entries of nbrTable
// (N × k, an epoch's sampled neighbours). Labels, masking and hop features
// are the caller's.
func LinkBatch(links [][2]int32, nbrTable []int32, k int, known func(d int32) []int32) *Batch {
	idx := map[int32]int32{}
	b := &Batch{}
	add := func(d int32) int32 {
		if i, ok := idx[d]; ok {
			return i
		}
		i := int32(len(b.Centres))
		idx[d] = i
		b.Centres = append(b.Centres, d)
		return i
	}
	for _, l := range links {
		u, v := add(l[0]), add(l[1])
		b.Anchors = append(b.Anchors, u, v)
		b.Positives = append(b.Positives, v, u)
	}
	B := len(b.Centres)
	b.Nbrs = Neighbors{K: k, Docs: make([]int32, 0, B*k)}
	for _, d := range b.Centres {
		b.Nbrs.Docs = append(b.Nbrs.Docs, nbrTable[int(d)*k:int(d+1)*k]...)
	}
	b.Admissible = make([]bool, len(b.Anchors)*B)
	for i, a := range b.Anchors {
		nbrs := known(b.Centres[a])
		for c := range B {
			ok := int32(c) != a
			if ok && int32(c) != b.Positives[i] {
				_, linked := slices.BinarySearch(nbrs, b.Centres[c])
				ok = !linked
			}
			b.Admissible[i*B+c] = ok
		}
	}
	return b
}
