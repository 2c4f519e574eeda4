package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fuzzServer is the fixture's server with small limits, so that fuzzed
// bodies reach the size limits too.
func fuzzServer(f *testing.F) http.Handler {
	ix, _ := fixture(f)
	opt := DefaultOptions()
	opt.MaxDocs, opt.MaxBody = 4, 2048
	return New(ix, opt)
}

// checkJSONAnswer fails unless the answer is JSON (by its Content-Type
// and its body) with one of the codes a /v1 JSON handler may give a single
// client: a 2xx, or a 4xx naming the problem in {"error": ...}.
func checkJSONAnswer(t *testing.T, what string, w *httptest.ResponseRecorder) {
	t.Helper()
	switch w.Code {
	case 200, 400, 404, 405, 413:
	default:
		t.Fatalf("%s: status %d %s", what, w.Code, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s: Content-Type %q", what, ct)
	}
	if !json.Valid(w.Body.Bytes()) {
		t.Fatalf("%s: the answer is not valid JSON: %q", what, w.Body)
	}
	if w.Code >= 400 {
		var e struct{ Error string }
		if json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
			t.Fatalf("%s: error answer %s", what, w.Body)
		}
	}
}

func fuzzPost(f *testing.F, path string, seeds []string) {
	h := fuzzServer(f)
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest("POST", "http://127.0.0.1"+path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		checkJSONAnswer(t, "POST "+path+" "+string(body), w)
	})
}

// FuzzEmbed sends arbitrary bodies to POST /v1/embed.
func FuzzEmbed(f *testing.F) {
	fuzzPost(f, "/v1/embed", []string{
		`{"docs":[{"id":"a","text":"topic tree","links":["1","b"]},{"id":"b","text":"x"}]}`,
		`{"docs":[{"id":1,"text":"","links":[2,"zz"]}]}`,
		`{"docs":[{"id":"a","text":"x","links":[null]}]}`,
		`{"docs":[{"id":"a","text":"x","label":"physics"}]}`,
		"{\"docs\":[{\"id\":\"\xff\xfe\",\"text\":\"x\"}]}",
		`{"docs":[{"id":"a","text":"x"},{"id":"a","text":"y"}]}`,
		`{"docs":[{"id":"0","text":"x"}]}`,
		`{"docs":[7,null,"x"]}`,
		`{"docs":null}`,
		`[]`,
		`{"docs":[{"id":"a","text":"x"}]}{}`,
		`{"docs":[{"id":"a","text":"\u0000\ud800"}]}`,
	})
}

// FuzzNeighbors sends arbitrary bodies to POST /v1/neighbors.
func FuzzNeighbors(f *testing.F) {
	fuzzPost(f, "/v1/neighbors", []string{
		`{"doc":3,"k":4}`,
		`{"doc":"nope"}`,
		`{"embedding":[1,0,0,0,0,0,0,0,0]}`,
		`{"embedding":[1e38,-1e38,0,0,0,0,0,0,0],"k":100}`,
		`{"embedding":[0,0,0,0,0,0,0,0,0],"k":1}`,
		`{"embedding":[1e39]}`,
		`{"k":1.5,"doc":"1"}`,
		`{"k":-1,"doc":"1"}`,
		`{"doc":true}`,
		`{"doc":"1","embedding":null}`,
	})
}

// FuzzGet sends arbitrary paths and queries to the GET endpoints.
func FuzzGet(f *testing.F) {
	h := fuzzServer(f)
	for _, s := range []string{
		"/v1/info", "/v1/tree", "/v1/topics/1?limit=3&cursor=9", "/v1/topics/-1", "/v1/topics/99999999999999999999",
		"/v1/documents/%00", "/v1/documents/%ff", "/v1/words/x?k=2", "/v1/words/%E2%82%AC?k=999",
		"/v1/search?q=%ff", "/v1/search?q=3", "/v1/layout?sample=0", "/v1/layout?sample=1e9", "/v1/nothing", "/v1/.", "/v1//tree",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		if !strings.HasPrefix(target, "/v1/") || strings.ContainsAny(target, " \r\n\t#") {
			return
		}
		req, err := http.NewRequest("GET", "http://127.0.0.1"+target, nil)
		if err != nil || req.URL.Path == "/v1/export/doc-topics.csv" {
			return // not a request a client can send; the CSV is not JSON
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code == http.StatusMovedPermanently || w.Code == http.StatusTemporaryRedirect || w.Code == http.StatusPermanentRedirect {
			return // the mux sends an unclean path (/v1/., /v1//x) to its clean form
		}
		checkJSONAnswer(t, "GET "+target, w)
	})
}
