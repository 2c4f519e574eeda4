package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gtformer/gtformer/explore"
)

// LoadOptions bound a load run: it stops after Requests requests or after
// Duration, whichever comes first, with Concurrency requests in flight.
type LoadOptions struct {
	Requests    int
	Duration    time.Duration
	Concurrency int
}

// LoadResult summarises a load run. Errors counts transport failures and
// answers other than 200; Latency percentiles are over the requests that
// completed.
type LoadResult struct {
	Name      string
	Requests  int
	Errors    int
	FirstErr  string
	P50, P99  time.Duration
	PerSecond float64
	Elapsed   time.Duration
}

// Load sends requests made by newReq(i) (i = 0, 1, ...) through client
// until opt's bounds, reading each answer whole, and measures them. It is
// meant for a server on this machine (loopback): the bounds make it stop
// by itself. No request starts after opt.Duration; those in flight then
// finish (within the client's timeout), so every measured request is
// whole and the server is idle when Load returns.
func Load(ctx context.Context, client *http.Client, name string, newReq func(i int) (*http.Request, error), opt LoadOptions) LoadResult {
	if opt.Concurrency < 1 {
		opt.Concurrency = 1
	}
	deadline := time.Now().Add(opt.Duration)
	var (
		mu       sync.Mutex
		next     int
		lat      []time.Duration
		errs     int
		firstErr string
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= opt.Requests || ctx.Err() != nil || time.Now().After(deadline) {
			return 0, false
		}
		next++
		return next - 1, true
	}
	fail := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		errs++
		if firstErr == "" {
			firstErr = msg
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range opt.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				req, err := newReq(i)
				if err != nil {
					fail(err.Error())
					continue
				}
				t0 := time.Now()
				res, err := client.Do(req.WithContext(ctx))
				if err != nil {
					fail(err.Error())
					continue
				}
				_, err = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				d := time.Since(t0)
				switch {
				case err != nil:
					fail(err.Error())
				case res.StatusCode != http.StatusOK:
					fail(fmt.Sprintf("%s %s: status %d", req.Method, req.URL.Path, res.StatusCode))
				default:
					mu.Lock()
					lat = append(lat, d)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	r := LoadResult{Name: name, Requests: len(lat) + errs, Errors: errs, FirstErr: firstErr, Elapsed: time.Since(start)}
	if len(lat) > 0 {
		slices.Sort(lat)
		r.P50 = lat[percentile(len(lat), 0.50)]
		r.P99 = lat[percentile(len(lat), 0.99)]
		r.PerSecond = float64(len(lat)) / r.Elapsed.Seconds()
	}
	return r
}

// percentile returns the index of the q-quantile of n sorted values
// (nearest rank).
func percentile(n int, q float64) int {
	k := int(q*float64(n)+0.999999) - 1
	return min(max(k, 0), n-1)
}

// BenchOptions size Bench: each endpoint's run is bounded by Load's
// options; EmbedBatch documents go in each POST /v1/embed.
type BenchOptions struct {
	Load       LoadOptions
	EmbedBatch int
}

// Bench starts the API over ix on a free loopback port, loads GET /v1/tree,
// GET /v1/documents/{id} (cycling over a sample of documents) and POST
// /v1/embed (batches of corpus documents' text, linked to their
// neighbours, under new ids), then shuts the server down. It returns one
// result per endpoint and how many goroutines outlived the run (0 unless
// something leaks), after waiting up to two seconds for them to end.
func Bench(ctx context.Context, ix *explore.Index, opt BenchOptions) ([]LoadResult, int, error) {
	before := runtime.NumGoroutine()
	sopt := DefaultOptions()
	// The load's own concurrency must not trip the limits it measures.
	sopt.MaxEmbed = max(sopt.MaxEmbed, opt.Load.Concurrency)
	sopt.MaxConcurrent = max(sopt.MaxConcurrent, opt.Load.Concurrency)
	sopt.MaxDocs = max(sopt.MaxDocs, opt.EmbedBatch)
	sctx, stop := context.WithCancel(ctx)
	addr := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(sctx, "127.0.0.1:0", New(ix, sopt), time.Minute, func(a net.Addr) { addr <- a.String() })
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case err := <-done:
		stop()
		return nil, 0, err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: opt.Load.Concurrency}
	// A request may take long on a busy machine (an embed batch runs the
	// network over its documents and their neighbours); the timeout only
	// keeps a stuck server from holding the run forever.
	client := &http.Client{Transport: tr, Timeout: 5 * time.Minute}

	sample := ix.Sample(1000)
	g := ix.Graph()
	embedBody := func(i int) ([]byte, error) {
		type doc struct {
			ID    string   `json:"id"`
			Text  string   `json:"text"`
			Links []string `json:"links,omitempty"`
		}
		var req struct {
			Docs []doc `json:"docs"`
		}
		for k := range opt.EmbedBatch {
			d := sample[(i*opt.EmbedBatch+k)%len(sample)]
			var words []string
			for _, w := range g.Doc(d) {
				words = append(words, g.Vocab[w])
			}
			nd := doc{ID: fmt.Sprintf("bench-%d-%d", i, k), Text: strings.Join(words, " ")}
			for _, n := range g.Neighbors(d) {
				nd.Links = append(nd.Links, ix.DocID(int(n)))
			}
			req.Docs = append(req.Docs, nd)
		}
		return json.Marshal(req)
	}
	runs := []struct {
		name string
		req  func(i int) (*http.Request, error)
	}{
		{"GET /v1/tree", func(int) (*http.Request, error) { return http.NewRequest("GET", base+"/v1/tree", nil) }},
		{"GET /v1/documents/{id}", func(i int) (*http.Request, error) {
			return http.NewRequest("GET", base+"/v1/documents/"+url.PathEscape(ix.DocID(sample[i%len(sample)])), nil)
		}},
		{fmt.Sprintf("POST /v1/embed (%d docs)", opt.EmbedBatch), func(i int) (*http.Request, error) {
			b, err := embedBody(i)
			if err != nil {
				return nil, err
			}
			r, err := http.NewRequest("POST", base+"/v1/embed", bytes.NewReader(b))
			if err == nil {
				r.Header.Set("Content-Type", "application/json")
			}
			return r, err
		}},
	}
	var out []LoadResult
	for _, r := range runs {
		out = append(out, Load(ctx, client, r.name, r.req, opt.Load))
	}
	tr.CloseIdleConnections()
	stop()
	if err := <-done; err != nil {
		return out, 0, err
	}
	leaked := 0
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		leaked = max(runtime.NumGoroutine()-before, 0)
		if leaked == 0 || time.Now().After(deadline) {
			break
		}
	}
	return out, leaked, nil
}
