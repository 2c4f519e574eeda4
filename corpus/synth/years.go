package synth

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/gtformer/gtformer/corpus"
)

// YearField is the name of the field Years writes.
const YearField = "year"

// Rising is the planted branch (level-1 topic id) whose documents grow in
// number over the years of Years; the other branches' are flat.
const Rising = 1

// Years draws a publication year in [from, to] for every document of a
// corpus Generate drew with truth tr, with a planted drift: a document of
// branch Rising falls in year y with a weight growing linearly from 1/3 of
// the mean (at from) to 3 times it (at to); the other branches' documents
// are spread evenly. Rising's share of the documents therefore rises over
// the years while the others' falls. The draw has its own random stream
// (seeded by seed), so that the corpus itself is the one Generate draws
// without years.
func Years(tr *Truth, from, to int, seed uint64) (corpus.Field, error) {
	if from > to || to-from > 10000 {
		return corpus.Field{}, fmt.Errorf("synth: years %d-%d: want a first year at most the last, within 10,000 years", from, to)
	}
	n := to - from + 1
	// Cumulative weights of the rising branch's years.
	cum := make([]float64, n)
	var sum float64
	for k := range n {
		w := 1.0
		if n > 1 {
			w = 1.0/3 + (3-1.0/3)*float64(k)/float64(n-1)
		}
		sum += w
		cum[k] = sum
	}
	rng := rand.New(rand.NewPCG(seed, 0x79656172)) // "year"
	f := corpus.Field{Name: YearField, Kind: corpus.KindNumber, Values: make([]string, len(tr.Leaf))}
	for i, leaf := range tr.Leaf {
		k := rng.IntN(n)
		if tr.Branch(leaf) == Rising {
			u := rng.Float64() * sum
			k = min(sort.SearchFloat64s(cum, u), n-1)
		}
		f.Values[i] = strconv.Itoa(from + k)
	}
	return f, nil
}
