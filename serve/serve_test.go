package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func do(t *testing.T, h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	// A loopback Host, as a local client sends; a POST body as JSON.
	req := httptest.NewRequest(method, "http://127.0.0.1:8080"+target, r)
	if method == "POST" || method == "PUT" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestEndpoints: every endpoint answers a good request with 200 and the
// expected content, and every kind of bad request with its status and a
// JSON error naming the problem.
func TestEndpoints(t *testing.T) {
	ix, _ := fixture(t)
	opt := DefaultOptions()
	opt.MaxBody, opt.MaxDocs = 4096, 3
	h := New(ix, opt)
	top := ix.Tree().Nodes[0].Words[0].Word
	n1 := ix.Info().Dim + 1
	point := make([]string, n1)
	for i := range point {
		point[i] = "0"
	}
	point[0] = "1"
	big := `{"docs":[{"id":"a","text":"` + strings.Repeat("x", 5000) + `"}]}`
	cases := []struct {
		name, method, target, body string
		code                       int
		want                       string // substring of the body
	}{
		{"health", "GET", "/healthz", "", 200, `"status":"ok","api_in_flight":0,"api_limit":64`},
		{"info", "GET", "/v1/info", "", 200, fmt.Sprintf(`"dim":%d`, ix.Info().Dim)},
		{"info hash", "GET", "/v1/info", "", 200, `"model_sha256":"`},
		{"tree", "GET", "/v1/tree", "", 200, `"word":"` + top + `"`},
		{"tree labels", "GET", "/v1/tree", "", 200, `"label_source":"auto"`},
		{"info edits", "GET", "/v1/info", "", 200, `"edits":false`},
		{"label without token", "PUT", "/v1/topics/1/label", `{"label":"x"}`, 403, `needs a server started with a token`},
		{"topic", "GET", "/v1/topics/1?limit=3", "", 200, `"words_by_lift":[{`},
		{"topic page 2", "GET", "/v1/topics/0?limit=3&cursor=3", "", 200, `"next_cursor":"6"`},
		{"topic id not int", "GET", "/v1/topics/abc", "", 400, `topic id \"abc\" is not an integer`},
		{"topic unknown", "GET", "/v1/topics/999", "", 404, `topic 999`},
		{"topic limit 0", "GET", "/v1/topics/0?limit=0", "", 400, `parameter limit`},
		{"topic limit text", "GET", "/v1/topics/0?limit=ten", "", 400, `parameter limit`},
		{"topic limit over", "GET", "/v1/topics/0?limit=101", "", 400, `from 1 to 100`},
		{"topic cursor negative", "GET", "/v1/topics/0?cursor=-1", "", 400, `parameter cursor`},
		{"topic cursor past end", "GET", "/v1/topics/0?cursor=100000", "", 400, `past the topic's`},
		{"document", "GET", "/v1/documents/5", "", 200, `"nearest":[{`},
		{"document unknown", "GET", "/v1/documents/nope", "", 404, `document \"nope\"`},
		{"word", "GET", "/v1/words/" + top, "", 200, `"rank":1`},
		{"word unknown", "GET", "/v1/words/zzzzqq", "", 404, `not in the model's vocabulary`},
		{"word k", "GET", "/v1/words/" + top + "?k=0", "", 400, `parameter k`},
		{"search word", "GET", "/v1/search?q=" + top, "", 200, `"word":{"word":"` + top},
		{"search doc", "GET", "/v1/search?q=7", "", 200, `"document":{"id":"7"`},
		{"search empty", "GET", "/v1/search", "", 400, `parameter q`},
		{"layout", "GET", "/v1/layout?sample=5", "", 200, `"density":{"size":64`},
		{"layout sample", "GET", "/v1/layout?sample=-2", "", 400, `parameter sample`},
		{"layout sample over", "GET", "/v1/layout?sample=20001", "", 400, `parameter sample`},
		{"csv", "GET", "/v1/export/doc-topics.csv", "", 200, "id,label,top_topic,top_theta,path,top_topic_label\n0,"},
		{"page", "GET", "/", "", 200, `<script src="assets/app.js">`},
		{"script", "GET", "/assets/app.js", "", 200, `'use strict'`},
		{"tree POST", "POST", "/v1/tree", "", 405, `method POST is not allowed on /v1/tree: use GET`},
		{"embed GET", "GET", "/v1/embed", "", 405, `use POST`},
		{"neighbors DELETE", "DELETE", "/v1/neighbors", "", 405, `use POST`},
		{"no endpoint", "GET", "/v1/nothing", "", 404, `no endpoint /v1/nothing`},
		{"embed", "POST", "/v1/embed", `{"docs":[{"id":"n1","text":"` + top + `","links":["3"]}]}`, 200, `"warnings":[]`},
		{"embed int id", "POST", "/v1/embed", `{"docs":[{"id":12345,"text":"` + top + `"}]}`, 200, `"id":"12345"`},
		{"embed unknown link", "POST", "/v1/embed", `{"docs":[{"id":"n1","text":"` + top + `","links":["nope"]}]}`, 200, `link \"nope\" names neither`},
		{"embed no known word", "POST", "/v1/embed", `{"docs":[{"id":"n1","text":"qqqq zzzz"}]}`, 200, `none of its words is in the model's vocabulary`},
		{"embed malformed", "POST", "/v1/embed", `{"docs":[`, 400, `invalid JSON`},
		{"embed syntax", "POST", "/v1/embed", `{"docs": x}`, 400, `invalid JSON at byte`},
		{"embed unknown field", "POST", "/v1/embed", `{"docs":[{"id":"a","text":"b","title":"c"}]}`, 400, `unknown field \"title\"`},
		{"embed unknown top field", "POST", "/v1/embed", `{"documents":[]}`, 400, `unknown field \"documents\"`},
		{"embed wrong type", "POST", "/v1/embed", `{"docs":{"id":"a"}}`, 400, `field \"docs\" must be an array`},
		{"embed empty body", "POST", "/v1/embed", ``, 400, `empty request body`},
		{"embed trailing", "POST", "/v1/embed", `{"docs":[{"id":"a","text":"b"}]} {}`, 400, `more data after`},
		{"embed no docs", "POST", "/v1/embed", `{"docs":[]}`, 400, `"docs\" is missing or empty`},
		{"embed no text", "POST", "/v1/embed", `{"docs":[{"id":"a"}]}`, 400, `has no \"text\"`},
		{"embed no id", "POST", "/v1/embed", `{"docs":[{"text":"a"}]}`, 400, `docs[0]: id: missing`},
		{"embed float id", "POST", "/v1/embed", `{"docs":[{"id":1.5,"text":"a"}]}`, 400, `want a string or an integer`},
		{"embed bad link", "POST", "/v1/embed", `{"docs":[{"id":"a","text":"a","links":[[]]}]}`, 400, `docs[0]: link: want a string or an integer`},
		{"embed duplicate", "POST", "/v1/embed", `{"docs":[{"id":"a","text":"x"},{"id":"a","text":"y"}]}`, 400, `docs[1]: duplicate id \"a\"`},
		{"embed too many docs", "POST", "/v1/embed", `{"docs":[{"id":"a","text":"x"},{"id":"b","text":"x"},{"id":"c","text":"x"},{"id":"d","text":"x"}]}`, 413, `4 documents in one request; the limit is 3`},
		{"embed body too big", "POST", "/v1/embed", big, 413, `over the limit of 4096 bytes`},
		{"neighbors doc", "POST", "/v1/neighbors", `{"doc":"5","k":3}`, 200, `"distance"`},
		{"neighbors point", "POST", "/v1/neighbors", `{"embedding":[` + strings.Join(point, ",") + `]}`, 200, `"neighbors":[{`},
		{"neighbors neither", "POST", "/v1/neighbors", `{"k":3}`, 400, `exactly one of`},
		{"neighbors both", "POST", "/v1/neighbors", `{"doc":"5","embedding":[1]}`, 400, `exactly one of`},
		{"neighbors length", "POST", "/v1/neighbors", `{"embedding":[1,2]}`, 400, fmt.Sprintf(`has 2 coordinates; the model's points have %d`, n1)},
		{"neighbors k", "POST", "/v1/neighbors", `{"doc":"5","k":0}`, 400, `"k\" = 0`},
		{"neighbors k over", "POST", "/v1/neighbors", `{"doc":"5","k":101}`, 400, `want 1 to 100`},
		{"neighbors unknown doc", "POST", "/v1/neighbors", `{"doc":"nope"}`, 404, `document \"nope\"`},
		{"neighbors bad doc", "POST", "/v1/neighbors", `{"doc":true}`, 400, `"doc\"`},
		{"neighbors overflow", "POST", "/v1/neighbors", `{"embedding":[1e39]}`, 400, `field \"embedding\" must be a number within ±3.4e38`},
		{"neighbors k float", "POST", "/v1/neighbors", `{"doc":"5","k":1.5}`, 400, `field \"k\" must be an integer, got number 1.5`},
		{"neighbors k text", "POST", "/v1/neighbors", `{"doc":"5","k":"3"}`, 400, `field \"k\" must be an integer, got string`},
		{"embed label", "POST", "/v1/embed", `{"docs":[{"id":"n1","text":"` + top + `","label":"physics"}]}`, 200, `"id":"n1"`},
		{"embed id not UTF-8", "POST", "/v1/embed", "{\"docs\":[{\"id\": \"a\xff\", \"text\": \"x\"}]}", 400, `docs[0]: not valid UTF-8 (byte 10 of the line is 0xff)`},
		{"embed doc not object", "POST", "/v1/embed", `{"docs":[7]}`, 400, `docs[0]: want a JSON object {\"id\": ..., \"text\": ..., \"links\": [...]}, got number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := do(t, h, c.method, c.target, c.body)
			body := w.Body.String()
			if w.Code != c.code || !strings.Contains(body, c.want) {
				t.Fatalf("%s %s: %d %s\nwant %d and %q", c.method, c.target, w.Code, body, c.code, c.want)
			}
			ct := w.Header().Get("Content-Type")
			if c.code != 200 {
				var e struct{ Error string }
				if ct != "application/json" || json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
					t.Errorf("error answer is not {\"error\": ...} JSON: %s %q", ct, body)
				}
			}
			if c.code == 405 && w.Header().Get("Allow") == "" {
				t.Error("405 without Allow")
			}
		})
	}
}

// TestTooManyRequests: with the API's or the embed limit's slots all
// taken, a request gets 429 with Retry-After, and gets through once a slot
// is free.
func TestTooManyRequests(t *testing.T) {
	ix, _ := fixture(t)
	opt := DefaultOptions()
	opt.MaxConcurrent, opt.MaxEmbed, opt.RetryAfter = 2, 1, 3*time.Second
	s := New(ix, opt)
	embed := `{"docs":[{"id":"a","text":"x"}]}`
	for _, c := range []struct {
		name         string
		sem          chan struct{}
		method, path string
		body         string
	}{
		{"api", s.apiSem, "GET", "/v1/tree", ""},
		{"embed", s.embedSem, "POST", "/v1/embed", embed},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range cap(c.sem) {
				c.sem <- struct{}{}
			}
			w := do(t, s, c.method, c.path, c.body)
			if w.Code != 429 || w.Header().Get("Retry-After") != "3" || !strings.Contains(w.Body.String(), "too many requests") {
				t.Errorf("full: %d, Retry-After %q, %s", w.Code, w.Header().Get("Retry-After"), w.Body)
			}
			<-c.sem
			if w := do(t, s, c.method, c.path, c.body); w.Code != 200 {
				t.Errorf("with a free slot: %d %s", w.Code, w.Body)
			}
			for len(c.sem) > 0 {
				<-c.sem
			}
		})
	}
	if w := do(t, s, "GET", "/healthz", ""); w.Code != 200 {
		t.Errorf("healthz is not limited: %d", w.Code)
	}
}

// TestConcurrentRequests runs embed, document and neighbour requests from
// many goroutines at once (run with -race: the model and index are shared
// read-only) and checks each answer equals the one given alone.
func TestConcurrentRequests(t *testing.T) {
	ix, _ := fixture(t)
	opt := DefaultOptions()
	opt.MaxEmbed = 16
	srv := httptest.NewServer(New(ix, opt))
	defer srv.Close()
	reqs := []struct{ method, path, body string }{
		{"POST", "/v1/embed", `{"docs":[{"id":"a","text":"` + ix.Tree().Nodes[0].Words[0].Word + ` more words","links":["1","b"]},{"id":"b","text":"other text","links":["2"]}]}`},
		{"POST", "/v1/embed", `{"docs":[{"id":"c","text":"` + ix.Tree().Nodes[1].Words[0].Word + `","links":["9"]}]}`},
		{"GET", "/v1/documents/3", ""},
		{"POST", "/v1/neighbors", `{"doc":"4","k":5}`},
		{"GET", "/v1/topics/0?limit=5", ""},
	}
	get := func(k int) (string, error) {
		r := reqs[k]
		req, err := http.NewRequest(r.method, srv.URL+r.path, strings.NewReader(r.body))
		if err != nil {
			return "", err
		}
		if r.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			return "", fmt.Errorf("%s %s: %d %s", r.method, r.path, res.StatusCode, b)
		}
		return string(b), err
	}
	want := make([]string, len(reqs))
	for k := range reqs {
		var err error
		if want[k], err = get(k); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := i % len(reqs)
			got, err := get(k)
			if err == nil && got != want[k] {
				err = fmt.Errorf("request %d: concurrent answer differs from the answer alone", k)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestListenAndServeGraceful: cancelling the context stops the server;
// a request in flight finishes first, new connections are refused after.
func TestListenAndServeGraceful(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		io.WriteString(w, "done")
	})
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, "127.0.0.1:0", h, 5*time.Second, func(a net.Addr) { addr <- a.String() })
	}()
	base := "http://" + <-addr
	got := make(chan string, 1)
	go func() {
		res, err := http.Get(base + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got <- string(b)
	}()
	<-started
	cancel()
	time.Sleep(50 * time.Millisecond) // Shutdown closes the listener first
	if _, err := net.DialTimeout("tcp", strings.TrimPrefix(base, "http://"), time.Second); err == nil {
		t.Error("new connections are accepted after shutdown began")
	}
	close(release)
	if s := <-got; s != "done" {
		t.Errorf("request in flight: %q, want done", s)
	}
	if err := <-done; err != nil {
		t.Errorf("ListenAndServe: %v", err)
	}
}

// TestListenAndServeBadAddress: a busy or malformed address is an error,
// not a hang.
func TestListenAndServeBadAddress(t *testing.T) {
	if err := ListenAndServe(context.Background(), "127.0.0.1:notaport", http.NotFoundHandler(), time.Second, nil); err == nil {
		t.Error("no error for a bad address")
	}
}

// TestDefaultOptions: the defaults are positive and bind nothing by
// themselves (binding is the command's --addr, 127.0.0.1 by default).
func TestDefaultOptions(t *testing.T) {
	o := DefaultOptions()
	if o.MaxBody <= 0 || o.MaxDocs <= 0 || o.MaxConcurrent <= 0 || o.MaxEmbed <= 0 || o.RetryAfter <= 0 {
		t.Errorf("%+v", o)
	}
}

// TestBench runs the load test small: every request succeeds and no
// goroutine outlives the server.
func TestBench(t *testing.T) {
	ix, _ := fixture(t)
	res, leaked, err := Bench(context.Background(), ix, BenchOptions{Load: LoadOptions{Requests: 12, Duration: time.Minute, Concurrency: 3}, EmbedBatch: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	for _, r := range res {
		if r.Errors > 0 || r.Requests != 12 || r.P50 <= 0 || r.P99 < r.P50 || r.PerSecond <= 0 {
			t.Errorf("%+v", r)
		}
	}
	if leaked != 0 {
		t.Errorf("%d goroutines leaked", leaked)
	}
}

// TestLoadStopsByDuration: the duration bound ends a run whose request
// bound is far away.
func TestLoadStopsByDuration(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(5 * time.Millisecond) }))
	defer srv.Close()
	start := time.Now()
	r := Load(context.Background(), srv.Client(), "x", func(int) (*http.Request, error) { return http.NewRequest("GET", srv.URL, nil) },
		LoadOptions{Requests: 1 << 30, Duration: 200 * time.Millisecond, Concurrency: 2})
	if el := time.Since(start); el > 5*time.Second || r.Requests == 0 || r.Errors != 0 {
		t.Errorf("%v: %+v", el, r)
	}
}

func TestPercentile(t *testing.T) {
	for _, c := range []struct {
		n    int
		q    float64
		want int
	}{{1, 0.5, 0}, {1, 0.99, 0}, {2, 0.5, 0}, {100, 0.5, 49}, {100, 0.99, 98}, {1000, 0.99, 989}, {10, 1, 9}} {
		if got := percentile(c.n, c.q); got != c.want {
			t.Errorf("percentile(%d, %g) = %d, want %d", c.n, c.q, got, c.want)
		}
	}
}
