package evaluate

import (
	"math"
	"testing"

	"github.com/gtformer/gtformer/model"
)

// Recovery: documents whose leaf mass sits wholly on a leaf of their own
// planted leaf score 1 (under any renaming); documents that all spread their
// mass the same way score 0; a hand-computed mixed case in between.
func TestRecovery(t *testing.T) {
	cfg := model.Default()
	cfg.Width, cfg.Heads, cfg.MLPHidden, cfg.Vocab = 8, 2, 16, 10
	m, err := model.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	T := m.Topics.Tables().T // 13: root 0, level 1 rows 1-3, leaves 4-12
	emb := func(rows ...map[int]float32) *model.Embeddings {
		theta := make([]float32, len(rows)*T)
		for i, r := range rows {
			for k, v := range r {
				theta[i*T+k] = v
			}
		}
		return &model.Embeddings{Topics: T, Theta: theta}
	}
	// Inner topics' mass (row 0) is ignored.
	perfect := emb(map[int]float32{0: 0.5, 7: 0.5}, map[int]float32{7: 1}, map[int]float32{11: 0.3})
	if r := Recovery(m, perfect, []int32{3, 3, 1}, []int32{0, 1, 2}); math.Abs(r-1) > 1e-12 {
		t.Errorf("perfect recovery = %v, want 1", r)
	}
	same := emb(map[int]float32{4: 0.5, 12: 0.5}, map[int]float32{4: 0.5, 12: 0.5})
	if r := Recovery(m, same, []int32{0, 1}, []int32{0, 1}); math.Abs(r) > 1e-12 {
		t.Errorf("uninformative paths give %v, want 0", r)
	}
	// Planted A = {0, 1} (one document each); document 0 all on leaf 4,
	// document 1 half on 4, half on 5. Joint: (0,4) 1/2, (1,4) 1/4,
	// (1,5) 1/4; p(A) = (1/2, 1/2), p(P) = (3/4, 1/4).
	// I = 1/2·ln((1/2)/(1/2·3/4)) + 1/4·ln((1/4)/(1/2·3/4)) + 1/4·ln((1/4)/(1/2·1/4))
	//   = 1/2·ln(4/3) + 1/4·ln(2/3) + 1/4·ln 2;
	// H(A) = ln 2, H(P) = −(3/4·ln 3/4 + 1/4·ln 1/4).
	mixed := emb(map[int]float32{4: 1}, map[int]float32{4: 0.5, 5: 0.5})
	I := 0.5*math.Log(4.0/3) + 0.25*math.Log(2.0/3) + 0.25*math.Ln2
	hp := -(0.75*math.Log(0.75) + 0.25*math.Log(0.25))
	want := I / ((math.Ln2 + hp) / 2)
	if r := Recovery(m, mixed, []int32{0, 1}, []int32{0, 1}); math.Abs(r-want) > 1e-12 {
		t.Errorf("mixed recovery = %v, want %v", r, want)
	}
	// Only docs count: a third document (a test document) on the other
	// planted leaf's path changes nothing when left out, and lowers the
	// score when counted.
	withTest := emb(map[int]float32{4: 1}, map[int]float32{4: 0.5, 5: 0.5}, map[int]float32{4: 1})
	if r := Recovery(m, withTest, []int32{0, 1, 1}, []int32{0, 1}); math.Abs(r-want) > 1e-12 {
		t.Errorf("recovery over documents 0 and 1 = %v, want %v as without document 2", r, want)
	}
	if r := Recovery(m, withTest, []int32{0, 1, 1}, []int32{0, 1, 2}); !(r < want) {
		t.Errorf("recovery counting document 2 = %v, want below %v", r, want)
	}
	for name, c := range map[string]struct{ planted, docs []int32 }{
		"no documents":          {[]int32{0, 1, 1}, nil},
		"planted too short":     {[]int32{0, 1}, []int32{0, 1}},
		"document past the end": {[]int32{0, 1, 1}, []int32{0, 3}},
		"negative document":     {[]int32{0, 1, 1}, []int32{-1}},
	} {
		if r := Recovery(m, withTest, c.planted, c.docs); !math.IsNaN(r) {
			t.Errorf("%s: recovery %v, want NaN", name, r)
		}
	}
}
