package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequests sends arbitrary bodies to the two POST endpoints and
// arbitrary ids and parameters to the GET ones: the server never panics
// and answers only with the documented codes, errors as JSON.
func FuzzRequests(f *testing.F) {
	ix, _ := fixture(f)
	opt := DefaultOptions()
	opt.MaxDocs, opt.MaxBody = 4, 2048
	h := New(ix, opt)
	f.Add("/v1/embed", `{"docs":[{"id":"a","text":"topic tree","links":["1","b"]},{"id":"b","text":"x"}]}`)
	f.Add("/v1/embed", `{"docs":[{"id":1,"text":"","links":[2,"zz"]}]}`)
	f.Add("/v1/embed", `{"docs":[{"id":"a","text":"x","links":[null]}]}`)
	f.Add("/v1/neighbors", `{"doc":3,"k":4}`)
	f.Add("/v1/neighbors", `{"embedding":[1,0,0,0,0,0,0,0,0]}`)
	f.Add("/v1/topics/1?limit=3&cursor=9", "")
	f.Add("/v1/documents/%00", "")
	f.Add("/v1/search?q=%ff", "")
	f.Fuzz(func(t *testing.T, target, body string) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \r\n\t#") {
			return
		}
		method := "GET"
		if body != "" {
			method = "POST"
		}
		req, err := http.NewRequest(method, "http://x"+target, strings.NewReader(body))
		if err != nil {
			return
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		switch w.Code {
		case 200, 400, 404, 405, 413:
		default:
			t.Fatalf("%s %s %q: status %d %s", method, target, body, w.Code, w.Body)
		}
		if w.Code >= 400 && !strings.HasPrefix(w.Body.String(), `{"error":`) && w.Header().Get("Content-Type") == "application/json" {
			t.Fatalf("%s %s: error body %s", method, target, w.Body)
		}
	})
}
