package explore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/topicmap"
)

// ReportOptions size a report.
type ReportOptions struct {
	// MaxDocs caps the documents a report holds (their panels, the disk's
	// points and the CSV rows): about 3 KB each. The rest are sampled
	// out (Index.Sample); the density layer still counts them all.
	MaxDocs int
	// TopicDocs is the representative documents listed per topic.
	TopicDocs int
	// WordsPerTopic: a report answers word searches for the words among
	// some topic's WordsPerTopic most probable.
	WordsPerTopic int
}

// DefaultReportOptions are gtformer report's defaults.
func DefaultReportOptions() ReportOptions {
	return ReportOptions{MaxDocs: 1000, TopicDocs: 20, WordsPerTopic: 50}
}

// reportMarker is in the head of every report, so that writing a report
// replaces only an earlier report, never another file.
const reportMarker = `<meta name="generator" content="gtformer report">`

// reportData is what a report inlines: the API's answers by path (ids
// unescaped, no query), read by the page instead of fetching them.
type reportData struct {
	Sampled       int            `json:"sampled"`
	Total         int            `json:"total"`
	WordsPerTopic int            `json:"words_per_topic"`
	Responses     map[string]any `json:"responses"`
}

// WriteReport writes the explorer as one self-contained HTML file: the
// page's script and style inlined with the answers it needs (every topic,
// a sample of at most opt.MaxDocs documents, word searches for the topics'
// top words), so it opens from disk with no server and no network. The
// file is written atomically; an existing file at path is replaced only
// when it is an earlier gtformer report.
func (ix *Index) WriteReport(path string, opt ReportOptions) error {
	def := DefaultReportOptions()
	if opt.MaxDocs < 0 || opt.TopicDocs < 0 || opt.WordsPerTopic < 0 {
		return fmt.Errorf("report: negative size in %+v", opt)
	}
	if opt.MaxDocs == 0 {
		opt.MaxDocs = def.MaxDocs
	}
	if opt.TopicDocs == 0 {
		opt.TopicDocs = def.TopicDocs
	}
	if opt.WordsPerTopic == 0 {
		opt.WordsPerTopic = def.WordsPerTopic
	}
	if err := checkReplaceable(path); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error { return ix.Report(w, opt) })
}

// checkReplaceable refuses to replace a file that is not a gtformer report.
func checkReplaceable(path string) error {
	// A named pipe, a device or a directory is never ours to replace, and
	// opening a pipe to read it would block.
	if err := atomicfile.Check(path); err != nil {
		return err
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	if !bytes.Contains(head[:n], []byte(reportMarker)) {
		return fmt.Errorf("%s exists and is not a gtformer report: not replacing it (remove it or choose another --out)", path)
	}
	return nil
}

// Report writes the report's HTML to w.
func (ix *Index) Report(w io.Writer, opt ReportOptions) error {
	sample := ix.Sample(opt.MaxDocs)
	resp := map[string]any{
		"/v1/info":   ix.Info(),
		"/v1/tree":   ix.Tree(),
		"/v1/layout": ix.Layout(len(sample)),
	}
	words := map[string]bool{}
	V := len(ix.g.Vocab)
	// Every document a topic panel lists opens in the report too, sampled
	// or not (a listed document that cannot open would be a dead link).
	listed := []int{}
	for _, nd := range ix.nodes {
		t, err := ix.Topic(nd.ID, 0, opt.TopicDocs)
		if err != nil {
			return err
		}
		t.Next = ""
		resp["/v1/topics/"+strconv.Itoa(nd.ID)] = t
		for _, d := range t.Documents {
			listed = append(listed, ix.docOf[d.ID])
		}
		r := ix.rowOf[nd.ID]
		for _, w := range topK(ix.beta[r*V:(r+1)*V], opt.WordsPerTopic) {
			words[ix.g.Vocab[w]] = true
		}
	}
	for w := range words {
		wt, err := ix.Word(w, 10)
		if err != nil {
			return err
		}
		resp["/v1/words/"+w] = wt
	}
	for _, i := range append(slices.Clone(sample), listed...) {
		if _, done := resp["/v1/documents/"+ix.DocID(i)]; done {
			continue // sampled and listed, or listed by several topics
		}
		d, err := ix.Document(ix.DocID(i))
		if err != nil {
			return err
		}
		resp["/v1/documents/"+d.ID] = d
	}
	// The facets of every topic by the first fields, and every level's link
	// map, as the page asks for them (the link maps with their query).
	info := ix.Info()
	fields := info.Fields[:min(len(info.Fields), reportMaxFields)]
	info.Fields = fields
	resp["/v1/info"] = info
	for _, nd := range ix.nodes {
		for _, f := range fields {
			fc, err := ix.Facets(nd.ID, f.Name, topicmap.FacetOptions{})
			if err != nil {
				return err
			}
			resp["/v1/topics/"+strconv.Itoa(nd.ID)+"/facets/"+f.Name] = fc
		}
	}
	for level := 1; level < info.Levels; level++ {
		lm, err := ix.LinkMap(level, 10)
		if err != nil {
			return err
		}
		resp["/v1/topics/links?level="+strconv.Itoa(level)+"&top=10"] = lm
	}
	var csv strings.Builder
	if err := ix.WriteDocTopicsCSV(&csv, sample); err != nil {
		return err
	}
	resp["/v1/export/doc-topics.csv"] = csv.String()
	// json.Marshal escapes <, > and &, so the data cannot close its
	// <script> element.
	data, err := json.Marshal(reportData{Sampled: len(sample), Total: ix.g.NumDocs(), WordsPerTopic: opt.WordsPerTopic, Responses: resp})
	if err != nil {
		return fmt.Errorf("report data: %w", err)
	}
	page, err := reportPage(Assets(), data)
	if err != nil {
		return err
	}
	_, err = w.Write(page)
	return err
}

// reportScripts are the page's scripts in the order index.html loads them.
var reportScripts = []string{"facets.js", "linkmap.js", "exports.js", "app.js"}

// reportMaxFields bounds the fields whose facets a report holds (one
// answer per topic and field).
const reportMaxFields = 8

// reportPage inlines the page's style and script and the data into
// index.html.
func reportPage(files fs.FS, data []byte) ([]byte, error) {
	read := func(name string) (string, error) {
		b, err := fs.ReadFile(files, name)
		return string(b), err
	}
	html, err := read("index.html")
	if err != nil {
		return nil, err
	}
	css, err := read("style.css")
	if err != nil {
		return nil, err
	}
	var js string
	var tags []string // the script elements the inlined script replaces
	for _, name := range reportScripts {
		s, err := read(name)
		if err != nil {
			return nil, err
		}
		js += s
		tags = append(tags, `<script src="assets/`+name+`"></script>`)
	}
	// The page's own files are ours; a closing tag inside them would end
	// the inlined element early, a programmer error the tests catch.
	if strings.Contains(strings.ToLower(css), "</style") || strings.Contains(strings.ToLower(js), "</script") {
		return nil, errors.New("explore: an asset holds a closing tag and cannot be inlined")
	}
	steps := []struct{ old, new string }{
		{`<meta name="generator" content="gtformer explorer">`, reportMarker},
		{`<title>gtformer explorer</title>`, `<title>gtformer report</title>`},
		{`<link rel="stylesheet" href="assets/style.css">`, "<style>\n" + css + "</style>"},
		// A report takes no edits: no rename control.
		{`<script src="assets/rename.js"></script>` + "\n", ""},
		{strings.Join(tags, "\n"),
			`<script id="gtformer-data" type="application/json">` + string(data) + "</script>\n<script>\n" + js + "</script>"},
	}
	for _, s := range steps {
		if strings.Count(html, s.old) != 1 {
			return nil, fmt.Errorf("explore: index.html does not hold %q once", s.old)
		}
		html = strings.Replace(html, s.old, s.new, 1)
	}
	return []byte(html), nil
}

// topK returns the indices of the k largest values of row.
func topK(row []float32, k int) []int {
	idx := make([]int, len(row))
	for i := range idx {
		idx[i] = i
	}
	sortByDesc(idx, row)
	return idx[:min(k, len(idx))]
}
