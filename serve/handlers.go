package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"

	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/explore"
)

// healthHandler answers /healthz: "ok" (200) while an API request would
// be admitted, "saturated" (503) while every API slot is taken.
type healthHandler struct{ api, embed chan struct{} }

// Health is /healthz's answer.
type Health struct {
	Status        string `json:"status"` // "ok" or "saturated"
	APIInFlight   int    `json:"api_in_flight"`
	APILimit      int    `json:"api_limit"`
	EmbedInFlight int    `json:"embed_in_flight"`
	EmbedLimit    int    `json:"embed_limit"`
}

func (h healthHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	res := Health{Status: "ok", APIInFlight: len(h.api), APILimit: cap(h.api), EmbedInFlight: len(h.embed), EmbedLimit: cap(h.embed)}
	code := http.StatusOK
	if res.APIInFlight >= res.APILimit {
		res.Status, code = "saturated", http.StatusServiceUnavailable
	}
	writeJSON(w, code, res)
}

// Limits are the server's limits as /v1/info reports them, so that a
// client can size its requests.
type Limits struct {
	MaxBody int64 `json:"max_body_bytes"`
	MaxDocs int   `json:"max_docs_per_request"`
	MaxK    int   `json:"max_k"`
	MaxPage int   `json:"max_page"`
}

type infoHandler struct {
	ix  *explore.Index
	opt Options
}

func (h infoHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		explore.Info
		Limits Limits `json:"limits"`
		// Edits: the server takes PUT /v1/topics/{id}/label (a token and
		// a writable model folder).
		Edits bool `json:"edits"`
	}{h.ix.Info(), Limits{MaxBody: h.opt.MaxBody, MaxDocs: h.opt.MaxDocs, MaxK: h.opt.MaxK, MaxPage: h.opt.MaxPage},
		h.opt.Token != "" && h.opt.SaveEdits != nil})
}

type treeHandler struct{ ix *explore.Index }

func (h treeHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, h.ix.Tree())
}

type searchHandler struct{ ix *explore.Index }

func (h searchHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query().Get("q")
	if len(q) == 0 || len(q) > 1000 {
		writeError(w, errorf(http.StatusBadRequest, "parameter q: want a word or a document id of 1 to 1000 bytes"))
		return
	}
	writeJSON(w, http.StatusOK, h.ix.Search(q, 10))
}

// intParam reads an optional non-negative integer query parameter within
// [lo, hi]; def when absent.
func intParam(r *http.Request, name string, def, lo, hi int) (int, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, errorf(http.StatusBadRequest, "parameter %s=%q: want an integer from %d to %d", name, s, lo, hi)
	}
	return v, nil
}

// notFoundOr maps explore.ErrNotFound to 404 and anything else to 400.
func notFoundOr(err error) error {
	if errors.Is(err, explore.ErrNotFound) {
		return errorf(http.StatusNotFound, "%v", err)
	}
	return errorf(http.StatusBadRequest, "%v", err)
}

type topicHandler struct {
	ix      *explore.Index
	maxPage int
}

func (h topicHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(r.PathValue("id"))
	if err != nil {
		writeError(w, errorf(http.StatusBadRequest, "topic id %q is not an integer", r.PathValue("id")))
		return
	}
	lim, err := intParam(r, "limit", 20, 1, h.maxPage)
	if err != nil {
		writeError(w, err)
		return
	}
	// The cursor is the offset into the topic's ranking that the previous
	// page's next_cursor gave.
	off, err := intParam(r, "cursor", 0, 0, math.MaxInt32)
	if err != nil {
		writeError(w, err)
		return
	}
	t, err := h.ix.Topic(id, off, lim)
	if err != nil {
		writeError(w, notFoundOr(err))
		return
	}
	writeJSON(w, http.StatusOK, t)
}

type documentHandler struct{ ix *explore.Index }

func (h documentHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d, err := h.ix.Document(r.PathValue("id"))
	if err != nil {
		writeError(w, notFoundOr(err))
		return
	}
	writeJSON(w, http.StatusOK, d)
}

type wordHandler struct{ ix *explore.Index }

func (h wordHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k, err := intParam(r, "k", 10, 1, h.ix.Info().Topics)
	if err != nil {
		writeError(w, err)
		return
	}
	res, err := h.ix.Word(r.PathValue("word"), k)
	if err != nil {
		writeError(w, notFoundOr(err))
		return
	}
	writeJSON(w, http.StatusOK, res)
}

type layoutHandler struct {
	ix          *explore.Index
	sample, max int
}

func (h layoutHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, err := intParam(r, "sample", h.sample, 0, h.max)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, h.ix.Layout(n))
}

type csvHandler struct{ ix *explore.Index }

func (h csvHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Made whole before anything is sent, so that a failure is a 500 and
	// not a truncated file that looks complete.
	var b bytes.Buffer
	if err := h.ix.WriteDocTopicsCSV(&b, nil); err != nil {
		writeError(w, fmt.Errorf("serve: %w", err))
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="doc-topics.csv"`)
	w.Write(b.Bytes())
}

// embedRequest is POST /v1/embed's body: the new documents, each read by
// corpus.ParseNewDocLine exactly as `gtformer embed --new` reads a line of
// its JSON Lines (the same fields, "label" accepted and unused, the same
// errors, invalid UTF-8 refused; a byte position counts from the
// document's opening brace as sent).
type embedRequest struct {
	Docs []json.RawMessage `json:"docs"`
}

// Embedded is one embedded document of POST /v1/embed's answer.
type Embedded struct {
	ID           string                `json:"id"`
	Embedding    []float32             `json:"embedding"` // n+1 hyperboloid coordinates, as embed --new writes them
	Topics       []explore.TopicWeight `json:"topics"`
	Path         []int                 `json:"path"`
	Words        int                   `json:"words"`         // words found in the model's vocabulary
	UnknownWords int                   `json:"unknown_words"` // words left out: not in the vocabulary
}

// EmbedResponse is POST /v1/embed's answer. Warnings name what was left
// out (links to no known or new document) or is doubtful (a document with
// no word in the vocabulary); never silently dropped.
type EmbedResponse struct {
	Docs     []Embedded `json:"docs"`
	Warnings []string   `json:"warnings"`
}

type embedHandler struct {
	ix  *explore.Index
	opt Options
}

func (h embedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req embedRequest
	if err := decodeJSON(w, r, h.opt.MaxBody, &req); err != nil {
		writeError(w, err)
		return
	}
	if len(req.Docs) == 0 {
		writeError(w, errorf(http.StatusBadRequest, `"docs" is missing or empty: give at least one {"id", "text", "links"}`))
		return
	}
	if len(req.Docs) > h.opt.MaxDocs {
		writeError(w, errorf(http.StatusRequestEntityTooLarge, "%d documents in one request; the limit is %d", len(req.Docs), h.opt.MaxDocs))
		return
	}
	docs := make([]corpus.NewDoc, len(req.Docs))
	for i, raw := range req.Docs {
		id, text, links, err := corpus.ParseNewDocLine(raw)
		if err != nil {
			writeError(w, errorf(http.StatusBadRequest, "docs[%d]: %v", i, err))
			return
		}
		docs[i] = corpus.NewDoc{ID: id, Text: text, Links: links}
	}
	g := h.ix.Graph()
	nd, err := g.ResolveNewDocs(docs, true)
	if err != nil {
		var de *corpus.NewDocError
		if errors.As(err, &de) {
			writeError(w, errorf(http.StatusBadRequest, "docs[%d]: %v", de.Doc, de.Err))
		} else {
			writeError(w, errorf(http.StatusBadRequest, "%v", err))
		}
		return
	}
	if r.Context().Err() != nil {
		return // the client is gone: spare the work
	}
	emb := h.ix.Model().EmbedNewIn(h.ix.Known(), nd, h.opt.MaxNbrs, h.opt.Batch)
	res := EmbedResponse{Docs: make([]Embedded, len(docs)), Warnings: []string{}}
	for _, u := range nd.UnknownLinks {
		res.Warnings = append(res.Warnings, fmt.Sprintf("docs[%d] (id %q): link %q names neither a known document nor one of this request's; it was left out", u.Doc, docs[u.Doc].ID, u.ID))
	}
	c, T := emb.Width+1, emb.Topics
	for i, d := range docs {
		th := emb.Theta[i*T : (i+1)*T]
		all := len(corpus.Tokenize(d.Text))
		res.Docs[i] = Embedded{ID: d.ID, Embedding: emb.Points[i*c : (i+1)*c],
			Topics: h.ix.TopTopics(th, explore.DocTopics), Path: h.ix.Path(th),
			Words: len(nd.Tokens[i]), UnknownWords: all - len(nd.Tokens[i])}
		if len(nd.Tokens[i]) == 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("docs[%d] (id %q): none of its words is in the model's vocabulary; it is placed by its links alone", i, d.ID))
		}
	}
	writeJSON(w, http.StatusOK, res)
}

// neighborsRequest is POST /v1/neighbors's body: a point (n+1 hyperboloid
// coordinates, as /v1/embed returns them) or a known document's id, and
// how many neighbours.
type neighborsRequest struct {
	Embedding []float32       `json:"embedding"`
	Doc       json.RawMessage `json:"doc"`
	K         *int            `json:"k"`
}

type neighborsHandler struct {
	ix      *explore.Index
	maxBody int64
	maxK    int
}

func (h neighborsHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req neighborsRequest
	if err := decodeJSON(w, r, h.maxBody, &req); err != nil {
		writeError(w, err)
		return
	}
	k := explore.Nearest
	if req.K != nil {
		k = *req.K
		if k < 1 || k > h.maxK {
			writeError(w, errorf(http.StatusBadRequest, `"k" = %d: want 1 to %d`, k, h.maxK))
			return
		}
	}
	hasDoc := len(req.Doc) > 0 && string(req.Doc) != "null"
	if (req.Embedding != nil) == hasDoc {
		writeError(w, errorf(http.StatusBadRequest, `give exactly one of "embedding" (the point's coordinates) and "doc" (a document id)`))
		return
	}
	x, skip := req.Embedding, -1
	if hasDoc {
		id, err := corpus.ParseID(req.Doc)
		if err != nil {
			writeError(w, errorf(http.StatusBadRequest, `"doc": %v`, err))
			return
		}
		i, ok := h.ix.DocIndex(id)
		if !ok {
			writeError(w, errorf(http.StatusNotFound, "document %q: %v", id, explore.ErrNotFound))
			return
		}
		x, skip = h.ix.Point(i), i
	} else if want := h.ix.Info().Dim + 1; len(x) != want {
		writeError(w, errorf(http.StatusBadRequest, `"embedding" has %d coordinates; the model's points have %d (n+1)`, len(x), want))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"neighbors": h.ix.Neighbors(x, k, skip)})
}
