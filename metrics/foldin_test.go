package metrics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// foldInFixture draws T topics over V words and documents from planted
// mixtures, so that EM has something to find.
func foldInFixture(seed uint64, T, V, N, L int) (beta []float32, planted []float64, docs DocList) {
	rng := rand.New(rand.NewPCG(seed, 1))
	beta = make([]float32, T*V)
	for t := range T {
		var s float64
		row := beta[t*V : (t+1)*V]
		for w := range row {
			row[w] = float32(math.Pow(rng.Float64(), 4)) + 1e-3
			s += float64(row[w])
		}
		for w := range row {
			row[w] /= float32(s)
		}
	}
	planted = make([]float64, N*T)
	for d := range N {
		var s float64
		for t := range T {
			planted[d*T+t] = rng.ExpFloat64()
			s += planted[d*T+t]
		}
		doc := make([]int32, L)
		for i := range doc {
			// Draw a topic, then a word.
			u, t := rng.Float64()*s, 0
			for ; t < T-1 && u > planted[d*T+t]; t++ {
				u -= planted[d*T+t]
			}
			u = rng.Float64()
			w := 0
			for ; w < V-1 && u > float64(beta[t*V+w]); w++ {
				u -= float64(beta[t*V+w])
			}
			doc[i] = int32(w)
		}
		for t := range T {
			planted[d*T+t] /= s
		}
		docs = append(docs, doc)
	}
	return beta, planted, docs
}

func uniformTheta(N, T int) []float32 {
	th := make([]float32, N*T)
	for i := range th {
		th[i] = 1 / float32(T)
	}
	return th
}

// Each EM round leaves the words' likelihood no lower (EM's invariant),
// with and without a background mixture, and the rows stay distributions.
func TestFoldInRaisesLikelihood(t *testing.T) {
	const T, V, N, L = 5, 40, 30, 60
	beta, _, docs := foldInFixture(1, T, V, N, L)
	bg := make([]float32, V)
	for w := range bg {
		bg[w] = 1 / float32(V)
	}
	for _, c := range []struct {
		name string
		mix  func(q float64, w int32) float64
	}{
		{"topics alone", nil},
		{"background at 0.4", func(q float64, w int32) float64 { return 0.4*float64(bg[w]) + 0.6*q }},
	} {
		t.Run(c.name, func(t *testing.T) {
			theta := uniformTheta(N, T)
			prev := PerplexityExponentMix(theta, beta, T, docs, c.mix)
			for step := 1; step <= 30; step++ {
				theta = FoldIn(theta, beta, T, docs, c.mix, 1)
				got := PerplexityExponentMix(theta, beta, T, docs, c.mix)
				if got > prev+1e-6 {
					t.Fatalf("step %d: log-perplexity rose from %.6f to %.6f", step, prev, got)
				}
				prev = got
			}
			for d := range N {
				var s float64
				for _, v := range theta[d*T : (d+1)*T] {
					if v < 0 {
						t.Fatalf("doc %d: negative weight %g", d, v)
					}
					s += float64(v)
				}
				if math.Abs(s-1) > 1e-5 {
					t.Fatalf("doc %d: θ sums to %g", d, s)
				}
			}
		})
	}
}

// On long documents drawn from planted mixtures, EM from a uniform start
// finds the mixtures (a planted structure recovered), and steps rounds at
// once are steps rounds one at a time.
func TestFoldInRecoversPlantedMixtures(t *testing.T) {
	const T, V, N, L = 4, 60, 20, 4000
	beta, planted, docs := foldInFixture(2, T, V, N, L)
	theta := FoldIn(uniformTheta(N, T), beta, T, docs, nil, 200)
	var worst float64
	for i, v := range theta {
		worst = max(worst, math.Abs(float64(v)-planted[i]))
	}
	if worst > 0.08 {
		t.Errorf("largest |θ − planted θ| after 200 rounds %.3f, want ≤ 0.08", worst)
	}
	one := uniformTheta(N, T)
	for range 200 {
		one = FoldIn(one, beta, T, docs, nil, 1)
	}
	for i := range one {
		if math.Abs(float64(one[i]-theta[i])) > 1e-4 {
			t.Fatalf("θ[%d]: 200 rounds at once %g, one at a time %g", i, theta[i], one[i])
		}
	}
}

// Closed forms: zero steps copy; a document of one word that only topic 1
// produces moves all its mass there in one round; an empty document and a
// document of words no weighted topic produces keep their rows; the start
// is not modified.
func TestFoldInClosedForms(t *testing.T) {
	beta := []float32{ // T = 2, V = 3
		0.5, 0.5, 0,
		0, 0.5, 0.5,
	}
	start := []float32{0.5, 0.5, 0.5, 0.5, 1, 0, 0.3, 0.7}
	docs := DocList{{2}, {}, {2, 2}, {1}}
	orig := append([]float32(nil), start...)
	if got := FoldIn(start, beta, 2, docs, nil, 0); !equal32(got, start) {
		t.Errorf("0 steps: %v, want the start %v", got, start)
	}
	got := FoldIn(start, beta, 2, docs, nil, 1)
	want := []float32{0, 1, 0.5, 0.5, 1, 0, 0.3, 0.7}
	if !equal32(got, want) {
		t.Errorf("1 step: %v, want %v", got, want)
	}
	if !equal32(start, orig) {
		t.Errorf("start modified: %v", start)
	}
}

func equal32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func BenchmarkFoldIn(b *testing.B) {
	const T, V, N, L = 13, 2000, 200, 100
	beta, _, docs := foldInFixture(3, T, V, N, L)
	theta := uniformTheta(N, T)
	b.ResetTimer()
	for b.Loop() {
		FoldIn(theta, beta, T, docs, nil, 10)
	}
	b.ReportMetric(float64(N*L*10)/b.Elapsed().Seconds()*float64(b.N), "token-rounds/s")
}
