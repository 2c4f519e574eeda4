package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// jsonDoc is one line of JSON Lines input.
type jsonDoc struct {
	ID    json.RawMessage   `json:"id"`
	Text  *string           `json:"text"`
	Links []json.RawMessage `json:"links"`
	Label json.RawMessage   `json:"label"`
	Meta  json.RawMessage   `json:"meta"`
}

// LoadJSONL reads a corpus of raw text, one JSON object per line:
//
//	{"id": "d1", "text": "Raw text ...", "links": ["d7", "d9"], "label": "physics",
//	 "meta": {"year": 1997, "venue": "ICML", "date": "1997-07"}}
//
// id (a string or a number) and text are required and ids must be unique;
// links (ids of other documents, either direction) and label (a string or a
// number) are optional, but either every document has a label or none has.
// meta holds the document's fields (Graph.Fields), each a number, a string
// or a date string ("YYYY", "YYYY-MM", "YYYY-MM-DD"); a field's values are
// all numbers or all strings (dates when every one is a date), and a
// document may lack any field.
// Blank lines are skipped. The text is tokenized by Tokenize and the
// vocabulary limited by opt.Tokenizer; word ids run from the most to the
// least document-frequent word. Label ids follow the sorted label names.
func LoadJSONL(path string, opt LoadOptions) (*Graph, error) {
	if err := opt.Tokenizer.check(); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &ParseError{File: path, Err: ErrMissingFile}
		}
		return nil, &ParseError{File: path, Err: err}
	}
	defer f.Close()
	g, err := parseJSONL(f, path, opt.Tokenizer)
	if err != nil {
		return nil, err
	}
	g.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if opt.KNNLinks && len(g.Links) == 0 {
		g.SetLinks(KNNGraph(g, opt.KNN))
		g.LinksInduced = true
	}
	return g, nil
}

// parseJSONL is LoadJSONL on a reader; file names the input in errors.
func parseJSONL(r io.Reader, file string, topt TokenizerOptions) (*Graph, error) {
	if err := topt.check(); err != nil {
		return nil, err
	}
	lr := newLineReader(r)
	var (
		ids      []string
		idLine   []int // input line of each document
		index    = make(map[string]int32)
		terms    = make(map[string]int32) // every distinct word seen -> term id
		termStr  []string
		df       []int32
		lastDoc  []int32 // last document that counted toward df, per term
		tokens   []int32 // term ids, CSR by docPtr
		docPtr   = []int64{0}
		linkFrom []int32
		linkTo   []string
		linkLine []int
		labels   []string
		labelled = -1 // line of the first document with a label, -1 if none yet
		unlabel  = -1 // same for the first without
		meta     = newFieldReader(file)
	)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &ParseError{File: file, Line: lr.line + 1, Err: err}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := checkUTF8(line); err != nil {
			return nil, &ParseError{File: file, Line: lr.line, Err: err}
		}
		var d jsonDoc
		if err := json.Unmarshal(line, &d); err != nil {
			return nil, parseErrorf(file, lr.line, "invalid JSON: %v", err)
		}
		id, err := jsonID(d.ID)
		switch {
		case d.ID == nil:
			return nil, parseErrorf(file, lr.line, `missing "id"`)
		case err != nil:
			return nil, parseErrorf(file, lr.line, `"id": %v`, err)
		case d.Text == nil:
			return nil, parseErrorf(file, lr.line, `document %q: missing "text"`, id)
		case len(ids) >= maxID-1:
			return nil, parseErrorf(file, lr.line, "more than %d documents", maxID-1)
		}
		if first, dup := index[id]; dup {
			return nil, parseErrorf(file, lr.line, "duplicate id %q (first on line %d)", id, idLine[first])
		}
		if err := meta.add(d.Meta, lr.line); err != nil {
			return nil, err
		}
		doc := int32(len(ids))
		index[id] = doc
		ids = append(ids, id)
		idLine = append(idLine, lr.line)

		tokenize(*d.Text, topt.KeepStopWords, func(w []byte) {
			t, ok := terms[string(w)]
			if !ok {
				t = int32(len(termStr))
				s := string(w)
				terms[s] = t
				termStr = append(termStr, s)
				df = append(df, 0)
				lastDoc = append(lastDoc, -1)
			}
			if lastDoc[t] != doc {
				lastDoc[t] = doc
				df[t]++
			}
			tokens = append(tokens, t)
		})
		docPtr = append(docPtr, int64(len(tokens)))

		for _, raw := range d.Links {
			to, err := jsonID(raw)
			if err != nil {
				return nil, parseErrorf(file, lr.line, `document %q: "links": %v`, id, err)
			}
			linkFrom = append(linkFrom, doc)
			linkTo = append(linkTo, to)
			linkLine = append(linkLine, lr.line)
		}

		if d.Label == nil || string(d.Label) == "null" {
			if unlabel < 0 {
				unlabel = lr.line
			}
			labels = append(labels, "")
		} else {
			name, err := jsonID(d.Label)
			if err != nil {
				return nil, parseErrorf(file, lr.line, `document %q: "label": %v`, id, err)
			}
			if labelled < 0 {
				labelled = lr.line
			}
			labels = append(labels, name)
		}
		if labelled >= 0 && unlabel >= 0 {
			return nil, parseErrorf(file, max(labelled, unlabel),
				"documents on lines %d and %d differ in having a \"label\": label every document or none", min(labelled, unlabel), max(labelled, unlabel))
		}
	}
	n := len(ids)
	if n == 0 {
		return nil, parseErrorf(file, 0, "%w: no documents", ErrEmpty)
	}

	g := &Graph{DocIDs: ids, Fields: meta.finish(n)}
	var keep []int32
	g.Vocab, keep = selectVocab(termStr, df, n, topt)
	if len(g.Vocab) == 0 {
		return nil, parseErrorf(file, 0, "%w: no word survives the tokenizer's limits (%d distinct words before limits; min-df %d, max-df %g, max-vocab %d)",
			ErrEmpty, len(termStr), topt.MinDF, topt.MaxDF, topt.MaxVocab)
	}
	// Rewrite term ids as word ids in place, dropping pruned words.
	g.DocPtr = make([]int64, n+1)
	out := 0
	for i := 0; i < n; i++ {
		for _, t := range tokens[docPtr[i]:docPtr[i+1]] {
			if w := keep[t]; w >= 0 {
				tokens[out] = w
				out++
			}
		}
		g.DocPtr[i+1] = int64(out)
	}
	g.Tokens = slices.Clip(tokens[:out])
	if out == 0 {
		return nil, parseErrorf(file, 0, "%w: no words in any document", ErrEmpty)
	}

	pairs := make([][2]int32, len(linkTo))
	for k, to := range linkTo {
		j, ok := index[to]
		if !ok {
			return nil, parseErrorf(file, linkLine[k], "document %q links to %q, which does not exist", ids[linkFrom[k]], to)
		}
		pairs[k] = [2]int32{linkFrom[k], j}
	}
	g.SetLinks(pairs)

	if labelled >= 0 {
		g.LabelNames = slices.Compact(slices.Sorted(slices.Values(labels)))
		id := make(map[string]int32, len(g.LabelNames))
		for k, name := range g.LabelNames {
			id[name] = int32(k)
		}
		g.Labels = make([]int32, n)
		for i, name := range labels {
			g.Labels[i] = id[name]
		}
	}
	return g, nil
}

// jsonID reads an id or a label: a non-empty string, or a number kept as
// written.
func jsonID(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if s == "" {
			return "", errors.New("empty string")
		}
		return s, nil
	}
	var num json.Number
	if err := json.Unmarshal(raw, &num); err == nil {
		return num.String(), nil
	}
	return "", fmt.Errorf("%s is not a string or a number", quote(raw))
}

// selectVocab applies the document-frequency limits and returns the kept
// words, ordered by decreasing document frequency (ties alphabetically),
// and per term its word id or -1.
func selectVocab(terms []string, df []int32, numDocs int, o TokenizerOptions) ([]string, []int32) {
	maxDF := float64(numDocs)
	if o.MaxDF > 0 {
		maxDF = o.MaxDF * float64(numDocs)
	}
	var cand []int32
	for t := range terms {
		if int(df[t]) >= o.MinDF && float64(df[t]) <= maxDF {
			cand = append(cand, int32(t))
		}
	}
	sort.Slice(cand, func(a, b int) bool {
		ta, tb := cand[a], cand[b]
		if df[ta] != df[tb] {
			return df[ta] > df[tb]
		}
		return terms[ta] < terms[tb]
	})
	if o.MaxVocab > 0 && len(cand) > o.MaxVocab {
		cand = cand[:o.MaxVocab]
	}
	keep := make([]int32, len(terms))
	for t := range keep {
		keep[t] = -1
	}
	vocab := make([]string, len(cand))
	for w, t := range cand {
		keep[t] = int32(w)
		vocab[w] = terms[t]
	}
	return vocab, keep
}
