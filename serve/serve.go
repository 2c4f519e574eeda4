// Package serve is gtformer's HTTP API over a trained model and its corpus
// (an explore.Index), and it serves the explorer page at /.
//
// Endpoints (JSON unless noted):
//
//	GET  /healthz                       {"status": "ok" or "saturated", slots in use and limits}
//	GET  /v1/info                       dimensions, curvature, counts, vocabulary, model hash, limits, edits (renames taken)
//	GET  /v1/tree                       {"nodes": [{id, parent, level, share, docs, children, words, label, label_source}]}
//	GET  /v1/topics/{id}?limit&cursor   a topic, its children, words by weight and by lift, representative documents (paged)
//	PUT  /v1/topics/{id}/label          {"label": "..."} → the renamed topic (with a token only; labelHandler)
//	GET  /v1/documents/{id}             top topics of θ, path, the 10 nearest documents
//	GET  /v1/words/{word}               the topics where a word ranks highest
//	GET  /v1/search?q=                  q as a word (its topics) and as a document id
//	GET  /v1/layout?sample=N            the Poincaré-disk view: topics, a document sample, the density of all
//	GET  /v1/export/doc-topics.csv      every document's top topic and path (text/csv; ids and labels through csvsafe)
//	POST /v1/embed                      {"docs": [{"id", "text", "links", "label"}]} → embedding, top topics and path per document
//	POST /v1/neighbors                  {"embedding": [...]} or {"doc": id}, "k" → nearest documents with distances
//
// Errors are {"error": "..."} naming the problem: 400 for malformed JSON,
// unknown fields and bad values (a label that is empty, over 80 bytes or
// holds a control character), 403 for an edit on a server without a token
// or with a model folder it cannot write, 404 for an unknown topic, document, word
// or path, 405 (with Allow) for a wrong method, 408 for a body that did not
// arrive within Options.BodyTimeout, 413 for a body over Options.MaxBody or
// more documents than Options.MaxDocs, 415 for a POST body not sent as
// application/json, 429 (with Retry-After) when Options.MaxConcurrent API
// requests, or Options.MaxEmbed embed requests, are already in flight; 401
// (with WWW-Authenticate) for a missing or wrong token when Options.Token
// is set. A request for a Host name the server does not answer for gets
// 421 with a plain-text reason (see guard.go for the whole front).
//
// /healthz answers 200 {"status": "ok", ...} while an API request would be
// admitted and 503 {"status": "saturated", ...} while every API slot is
// taken (a /v1 request would get 429), with the slots in use and their
// limits in both.
//
// The token and the page: the page itself and its assets need no token
// (they hold no data); the user opens /?token=T once, the page keeps T in
// the tab's sessionStorage, removes it from the address bar and sends it
// as "Authorization: Bearer T" with every API request.
//
// Every handler is a struct holding its dependencies. The index and the
// model are read-only but for the topics' labels, which the index guards
// with its own lock, so requests run concurrently.
package serve

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/explore"
)

// Options are the server's limits.
type Options struct {
	MaxBody       int64         // request body bytes (413 beyond)
	MaxDocs       int           // documents per embed request (413 beyond)
	MaxK          int           // neighbours per request
	MaxConcurrent int           // API requests in flight (429 beyond)
	MaxEmbed      int           // embed requests in flight (429 beyond): each uses a core
	RetryAfter    time.Duration // the Retry-After of a 429
	MaxNbrs       int           // neighbours a new document aggregates at most (as embed --max-nbrs)
	Batch         int           // documents per inference batch (as embed --batch)
	LayoutSample  int           // documents in the disk view unless ?sample= says otherwise
	MaxSample     int           // largest ?sample=
	MaxPage       int           // largest ?limit= of a topic's documents
	// BodyTimeout is the time a client has to send a POST body, from the
	// end of its headers (408 beyond); zero: DefaultOptions' 5 s.
	BodyTimeout time.Duration
	// AllowedHosts are the Host names answered besides LoopbackHosts (a
	// name, an IP, either with a port); nil: loopback names only. gtformer
	// serve adds its --addr host.
	AllowedHosts []string
	// Token, when not empty, is the bearer token every request but the
	// page, its assets and /healthz must carry; empty: none needed.
	Token string
	// SaveEdits writes the model's edit log after a topic is renamed
	// (model.SaveEdits into the served model folder); nil: the server
	// takes no edits. Edits are taken only with a Token.
	SaveEdits func(*edits.Log) error
}

// DefaultOptions are the limits of gtformer serve.
func DefaultOptions() Options {
	return Options{
		MaxBody:       1 << 20,
		MaxDocs:       64,
		MaxK:          100,
		MaxConcurrent: 64,
		MaxEmbed:      runtime.GOMAXPROCS(0),
		RetryAfter:    time.Second,
		MaxNbrs:       64,
		Batch:         128,
		LayoutSample:  2000,
		MaxSample:     20000,
		MaxPage:       100,
		BodyTimeout:   5 * time.Second,
	}
}

// Server is the API's handler.
type Server struct {
	front    http.Handler // the guard in front of mux
	mux      *http.ServeMux
	apiSem   chan struct{}
	embedSem chan struct{}
}

// New returns the handler of the API and page over ix.
func New(ix *explore.Index, opt Options) *Server {
	def := DefaultOptions()
	for _, f := range []struct {
		p *int
		d int
	}{{&opt.MaxDocs, def.MaxDocs}, {&opt.MaxK, def.MaxK}, {&opt.MaxConcurrent, def.MaxConcurrent},
		{&opt.MaxEmbed, def.MaxEmbed}, {&opt.MaxNbrs, def.MaxNbrs}, {&opt.Batch, def.Batch},
		{&opt.LayoutSample, def.LayoutSample}, {&opt.MaxSample, def.MaxSample}, {&opt.MaxPage, def.MaxPage}} {
		if *f.p <= 0 {
			*f.p = f.d
		}
	}
	if opt.MaxBody <= 0 {
		opt.MaxBody = def.MaxBody
	}
	if opt.RetryAfter <= 0 {
		opt.RetryAfter = def.RetryAfter
	}
	if opt.BodyTimeout <= 0 {
		opt.BodyTimeout = def.BodyTimeout
	}
	s := &Server{mux: http.NewServeMux(), apiSem: make(chan struct{}, opt.MaxConcurrent), embedSem: make(chan struct{}, opt.MaxEmbed)}
	s.front = newGuard(opt, s.mux)
	api := func(h http.Handler) http.Handler {
		return limit{sem: s.apiSem, retry: opt.RetryAfter, buffer: true, next: h}
	}
	// A POST's body is in memory before the request takes a slot.
	post := func(h http.Handler) http.Handler {
		return bodyFirst{maxBody: opt.MaxBody, timeout: opt.BodyTimeout, next: api(h)}
	}
	s.route("GET", "/healthz", healthHandler{api: s.apiSem, embed: s.embedSem})
	s.route("GET", "/v1/info", api(infoHandler{ix: ix, opt: opt}))
	s.route("GET", "/v1/tree", api(treeHandler{ix: ix}))
	s.route("GET", "/v1/topics/{id}", api(topicHandler{ix: ix, maxPage: opt.MaxPage}))
	s.route("PUT", "/v1/topics/{id}/label", post(labelHandler{ix: ix, opt: opt}))
	s.route("GET", "/v1/topics/{id}/facets/{field}", api(facetsHandler{ix: ix}))
	// Only GET: /v1/topics/{id}'s JSON 405 already answers the other
	// methods, and a second catch-all for this path would conflict with it.
	s.mux.Handle("GET /v1/topics/links", api(linksHandler{ix: ix}))
	s.route("GET", "/v1/documents/{id}", api(documentHandler{ix: ix}))
	s.route("GET", "/v1/words/{word}", api(wordHandler{ix: ix}))
	s.route("GET", "/v1/search", api(searchHandler{ix: ix}))
	s.route("GET", "/v1/layout", api(layoutHandler{ix: ix, sample: opt.LayoutSample, max: opt.MaxSample}))
	s.route("GET", "/v1/export/doc-topics.csv", api(csvHandler{ix: ix}))
	s.route("POST", "/v1/embed", post(limit{sem: s.embedSem, retry: opt.RetryAfter, next: embedHandler{ix: ix, opt: opt}}))
	s.route("POST", "/v1/neighbors", post(neighborsHandler{ix: ix, maxBody: opt.MaxBody, maxK: opt.MaxK}))
	s.mux.Handle("/v1/", notFound{})
	page := pageHandler{assets: explore.Assets()}
	s.mux.Handle("GET /{$}", page)
	s.mux.Handle("GET /assets/", page)
	return s
}

// route registers h for method and path, and a JSON 405 naming the allowed
// method for the others (the mux's own 405 is plain text).
func (s *Server) route(method, path string, h http.Handler) {
	s.mux.Handle(method+" "+path, h)
	s.mux.Handle(path, methodNotAllowed{allow: method})
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.front.ServeHTTP(w, r) }

// apiError is an error with its HTTP status.
type apiError struct {
	code int
	msg  string
}

func (e *apiError) Error() string { return e.msg }

func errorf(code int, format string, a ...any) *apiError {
	return &apiError{code: code, msg: fmt.Sprintf(format, a...)}
}

// writeJSON writes v with status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		// Every response type marshals; a failure is a programmer error,
		// reported rather than half-written.
		code, b = http.StatusInternalServerError, []byte(`{"error":"internal error: response not encodable"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

// writeError writes {"error": msg} with the error's status (500 for an
// error that is not an *apiError).
func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{code: http.StatusInternalServerError, msg: err.Error()}
	}
	writeJSON(w, ae.code, map[string]string{"error": ae.msg})
}

// decodeJSON reads one JSON object from the body into v: unknown fields,
// trailing data and an empty body are 400, a body over maxBody is 413.
func decodeJSON(w http.ResponseWriter, r *http.Request, maxBody int64, v any) error {
	if r.ContentLength > maxBody {
		return errorf(http.StatusRequestEntityTooLarge, "request body of %d bytes is over the limit of %d bytes", r.ContentLength, maxBody)
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() || dec.Decode(&struct{}{}) != io.EOF {
			return errorf(http.StatusBadRequest, "invalid JSON: more data after the request object")
		}
		return nil
	}
	var tooBig *http.MaxBytesError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return errorf(http.StatusRequestEntityTooLarge, "request body is over the limit of %d bytes", maxBody)
	case errors.Is(err, io.EOF):
		return errorf(http.StatusBadRequest, "invalid JSON: empty request body")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errorf(http.StatusBadRequest, "invalid JSON: the body ends in the middle of a value")
	case errors.As(err, &syn):
		return errorf(http.StatusBadRequest, "invalid JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		return errorf(http.StatusBadRequest, "field %q must be %s, got %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	default:
		// Unknown fields: "json: unknown field \"x\"".
		return errorf(http.StatusBadRequest, "invalid request: %s", trimJSONPrefix(err.Error()))
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32":
		return "a number within ±3.4e38 (float32)"
	}
	return "a number"
}

func trimJSONPrefix(s string) string {
	const p = "json: "
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

// limit admits a request while its semaphore has room and answers 429
// with Retry-After otherwise (never queues: a client backs off instead).
// With buffer, the answer is made in memory under the slot and sent after
// the slot is given back, so that a client reading slowly holds its
// connection but no slot.
type limit struct {
	sem    chan struct{}
	retry  time.Duration
	buffer bool
	next   http.Handler
}

func (l limit) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case l.sem <- struct{}{}:
	default:
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(l.retry.Round(time.Second)/time.Second))))
		writeError(w, errorf(http.StatusTooManyRequests, "too many requests in flight (limit %d): retry later", cap(l.sem)))
		return
	}
	if !l.buffer {
		defer func() { <-l.sem }()
		l.next.ServeHTTP(w, r)
		return
	}
	b := &bufferedResponse{header: w.Header()}
	func() {
		defer func() { <-l.sem }()
		l.next.ServeHTTP(b, r)
	}()
	w.WriteHeader(cmp.Or(b.code, http.StatusOK))
	// A write error means the client went away: nobody is left to tell.
	w.Write(b.body.Bytes())
}

// bufferedResponse is an answer held in memory: its status, its headers
// (the real writer's, nothing of which is sent before the body) and body.
type bufferedResponse struct {
	header http.Header
	code   int // the status given; 0 until WriteHeader or Write
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}

type methodNotAllowed struct{ allow string }

func (h methodNotAllowed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	allow := h.allow
	if allow == "GET" {
		allow = "GET, HEAD"
	}
	w.Header().Set("Allow", allow)
	writeError(w, errorf(http.StatusMethodNotAllowed, "method %s is not allowed on %s: use %s", r.Method, r.URL.Path, h.allow))
}

type notFound struct{}

func (notFound) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	writeError(w, errorf(http.StatusNotFound, "no endpoint %s", r.URL.Path))
}

// pageHandler serves the explorer page and its assets from the embedded
// files.
type pageHandler struct{ assets fs.FS }

func (h pageHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/" {
		b, err := fs.ReadFile(h.assets, "index.html")
		if err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
		return
	}
	http.StripPrefix("/assets/", http.FileServerFS(h.assets)).ServeHTTP(w, r)
}

// ListenAndServe serves h on addr until ctx is done, then shuts down
// gracefully: the listener closes at once and requests in flight get up to
// grace to finish. ready, when non-nil, is called with the bound address
// (addr may name port 0).
func ListenAndServe(ctx context.Context, addr string, h http.Handler, grace time.Duration, ready func(net.Addr)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr())
	}
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
