package serve

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkEmbed times POST /v1/embed with batches of new documents linked
// to the corpus (the fixture's 300 documents, width 8, three layers).
func BenchmarkEmbed(b *testing.B) {
	ix, _ := fixture(b)
	h := New(ix, DefaultOptions())
	word := ix.Tree().Nodes[0].Words[0].Word
	for _, batch := range []int{1, 16} {
		var docs []string
		for k := range batch {
			docs = append(docs, fmt.Sprintf(`{"id":"new%d","text":"%s and more","links":["%d","%d"]}`, k, word, k, k+1))
		}
		body := `{"docs":[` + strings.Join(docs, ",") + `]}`
		b.Run(fmt.Sprintf("docs=%d/batch=%d", ix.NumDocs(), batch), func(b *testing.B) {
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("POST", "/v1/embed", strings.NewReader(body)))
				if w.Code != 200 {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkTree times GET /v1/tree (encoding the tree).
func BenchmarkTree(b *testing.B) {
	ix, _ := fixture(b)
	h := New(ix, DefaultOptions())
	b.Run(fmt.Sprintf("topics=%d", len(ix.Tree().Nodes)), func(b *testing.B) {
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("GET", "/v1/tree", nil))
		}
	})
}
