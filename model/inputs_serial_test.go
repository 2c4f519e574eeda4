package model

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/gtformer/gtformer/corpus"
)

// TestNewInputsMatchesSerial checks the inputs, derived on every core,
// against the serial loop they replaced (newInputsSerial, kept here as it
// was), field for field, under both truncation rules, with documents
// shorter and longer than the maximum length and empty ones.
func TestNewInputsMatchesSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	rng := rand.New(rand.NewPCG(3, 4))
	g := &corpus.Graph{DocPtr: []int64{0}}
	for range 2000 {
		for range rng.IntN(120) {
			g.Tokens = append(g.Tokens, int32(rng.IntN(300)))
		}
		g.DocPtr = append(g.DocPtr, int64(len(g.Tokens)))
	}
	idf := make([]float32, 300)
	for i := range idf {
		idf[i] = float32(rng.Float64() * 5)
	}
	for _, truncate := range []string{"head", "tfidf"} {
		got, want := NewInputs(g, idf, 48, Truncate(truncate)), newInputsSerial(g, idf, 48, truncate)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("truncate %s: the inputs differ from the serial loop's", truncate)
		}
	}
}

// newInputsSerial is NewInputs as it was before it ran on every core.
func newInputsSerial(g *corpus.Graph, idf []float32, maxLen int, truncate string) *Inputs {
	bow := g.BoW()
	n := g.NumDocs()
	in := &Inputs{
		N:        n,
		TokPtr:   make([]int64, n+1),
		BowPtr:   bow.Ptr,
		BowWord:  bow.Word,
		BowCount: bow.Count,
		TfIdf:    make([]float32, len(bow.Word)),
		Len:      make([]int, n),
	}
	for i := 0; i < n; i++ {
		var ss float64
		for k := bow.Ptr[i]; k < bow.Ptr[i+1]; k++ {
			v := float64(bow.Count[k]) * float64(idf[bow.Word[k]])
			in.TfIdf[k] = float32(v)
			ss += v * v
		}
		if ss > 0 {
			inv := float32(1 / math.Sqrt(ss))
			for k := bow.Ptr[i]; k < bow.Ptr[i+1]; k++ {
				in.TfIdf[k] *= inv
			}
		}
	}
	var keep []weighted // scratch: positions and their words' weights
	for i := 0; i < n; i++ {
		doc := g.Doc(i)
		in.Len[i] = len(doc)
		if len(doc) <= maxLen {
			in.TokIdx = append(in.TokIdx, doc...)
		} else if truncate == "head" {
			in.TokIdx = append(in.TokIdx, doc[:maxLen]...)
		} else {
			keep = keepHeaviest(keep, doc, bow.Word[bow.Ptr[i]:bow.Ptr[i+1]], in.TfIdf[bow.Ptr[i]:bow.Ptr[i+1]], maxLen)
			for _, k := range keep {
				in.TokIdx = append(in.TokIdx, doc[k.pos])
			}
		}
		in.TokPtr[i+1] = int64(len(in.TokIdx))
	}
	return in
}
