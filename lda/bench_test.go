package lda

import "testing"

// BenchmarkFit times a whole fit (13 topics, scikit-learn's 100
// iterations) on a synthetic corpus of ML's size: 2,469 training
// documents of 30-80 tokens (ML: 63.5 on average) over 2,880 words.
func BenchmarkFit(b *testing.B) {
	for _, bc := range []struct {
		name        string
		docs, block int
	}{
		{"docs2469_vocab2880_T13", 2469, 2880 / 13},
	} {
		docs, _ := planted(8, bc.docs, 13, bc.block)
		V := 13 * bc.block
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Fit(docs, V, 13, Options{Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTransform times inferring θ of the same corpus's documents.
func BenchmarkTransform(b *testing.B) {
	docs, _ := planted(8, 2469, 13, 2880/13)
	m, err := Fit(docs, 13*(2880/13), 13, Options{Seed: 1, MaxIter: 20})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("docs2469_T13", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.Transform(docs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
