package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/npy"
	"github.com/gtformer/gtformer/serve"
)

// TestServeEmbedSameAsEmbedNew: POST /v1/embed gives, for the same new
// documents, exactly the coordinates `gtformer embed --new` writes, and
// top topics whose weights are those documents' θ from --topics-out.
func TestServeEmbedSameAsEmbedNew(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	tmp := t.TempDir()
	lines := []string{
		`{"id": "x", "text": "the striker scored a goal in the derby", "links": ["3", "17", "y"]}`,
		`{"id": "y", "text": "bake the bread with yeast and flour", "links": ["x", 40]}`,
		`{"id": "z", "text": "a distant galaxy seen by the telescope"}`,
	}
	in := filepath.Join(tmp, "new.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, topicsOut := filepath.Join(tmp, "new.npy"), filepath.Join(tmp, "theta.npy")
	if code, _, errs := runCmd("embed", "--model", dir, "--new", in, "--out", out, "--topics-out", topicsOut); code != 0 {
		t.Fatalf("embed: exit %d: %s", code, errs)
	}
	want, shape, err := npy.ReadAs[float32](out)
	if err != nil {
		t.Fatal(err)
	}
	theta, tshape, err := npy.ReadAs[float32](topicsOut)
	if err != nil {
		t.Fatal(err)
	}

	// The server as gtformer serve builds it.
	var d dataFlags
	d.registerLoad(flag.NewFlagSet("serve", flag.ContinueOnError)) // the defaults
	m, _, g, _, err := loadModelAndCorpus(dir, &d, false, io.Discard, "split")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := explore.Open(dir, m, g)
	if err != nil {
		t.Fatal(err)
	}
	body := `{"docs": [` + strings.Join(lines, ",") + `]}`
	req := httptest.NewRequest("POST", "/v1/embed", strings.NewReader(body))
	w := httptest.NewRecorder()
	serve.New(ix, serve.DefaultOptions()).ServeHTTP(w, req)
	if w.Code != 200 {
		t.Fatalf("POST /v1/embed: %d %s", w.Code, w.Body)
	}
	var res serve.EmbedResponse
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Docs) != shape[0] || len(res.Warnings) != 0 {
		t.Fatalf("%d documents (embed wrote %d), warnings %v", len(res.Docs), shape[0], res.Warnings)
	}
	c, T := shape[1], tshape[1]
	rowOf := map[int]int{}
	for r, id := range m.Topics.Tables().ID {
		rowOf[id] = r
	}
	for i, e := range res.Docs {
		row := want[i*c : (i+1)*c]
		if len(e.Embedding) != c {
			t.Fatalf("doc %d: %d coordinates, want %d", i, len(e.Embedding), c)
		}
		for j := range row {
			if math.Float32bits(e.Embedding[j]) != math.Float32bits(row[j]) {
				t.Fatalf("doc %s coordinate %d: API %v, embed --new %v", e.ID, j, e.Embedding[j], row[j])
			}
		}
		for _, tw := range e.Topics {
			if got := float32(tw.Weight); got != theta[i*T+rowOf[tw.ID]] {
				t.Errorf("doc %s topic %d: API θ %v, --topics-out %v", e.ID, tw.ID, got, theta[i*T+rowOf[tw.ID]])
			}
		}
	}
}

// lineWriter hands the command's output to the test through a pipe.
type lineWriter struct{ w *io.PipeWriter }

func (l lineWriter) Write(p []byte) (int, error) { return l.w.Write(p) }

// TestServeCommand runs gtformer serve on a free port, uses it, and stops
// it with SIGTERM: the command ends without error after a graceful
// shutdown.
func TestServeCommand(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- run([]string{"serve", "--model", dir, "--addr", "127.0.0.1:0"}, lineWriter{pw}, &stderr)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var base string
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), " on http://"); ok {
			base = "http://" + strings.TrimSuffix(strings.Fields(rest)[0], "/")
			break
		}
	}
	if base == "" {
		t.Fatalf("no serving line; stderr: %s", stderr.String())
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Errorf("bound to %s, want 127.0.0.1", base)
	}
	for _, p := range []string{"/healthz", "/", "/v1/tree"} {
		res, err := http.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("GET %s: %d", p, res.StatusCode)
		}
	}
	go io.Copy(io.Discard, pr) // the "stopped" line
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after SIGTERM: %s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop after SIGTERM")
	}
}

func TestServeReportUsage(t *testing.T) {
	for _, args := range [][]string{
		{"serve"},
		{"serve", "--model", "x", "--max-docs", "0"},
		{"serve", "--model", "x", "extra"},
		{"report", "--model", "x"},
		{"report", "--out", "x.html"},
		{"report", "--model", "x", "--out", "y", "--max-docs", "0"},
		{"bench", "serve"},
		{"bench", "serve", "--model", "x", "--requests", "0"},
	} {
		if code, _, _ := runCmd(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	// Bound to this machine unless told otherwise.
	if code, _, errs := runCmd("serve", "-h"); code != 0 || !strings.Contains(errs, `(default "127.0.0.1:8080")`) {
		t.Errorf("serve -h: exit %d, the --addr default is not 127.0.0.1:8080:\n%s", code, errs)
	}
	if code, _, errs := runCmd("serve", "--model", filepath.Join(t.TempDir(), "none")); code != 1 || !strings.Contains(errs, "none") {
		t.Errorf("missing model: exit %d, %q", code, errs)
	}
}

// TestReportCommand writes a report, rewrites it, and refuses to replace a
// file that is not a report.
func TestReportCommand(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	tmp := t.TempDir()
	out := filepath.Join(tmp, "report.html")
	for range 2 {
		code, stdout, errs := runCmd("report", "--model", dir, "--out", out, "--max-docs", "50")
		if code != 0 || !strings.Contains(stdout, "50 of 1500 documents") {
			t.Fatalf("exit %d: %s %s", code, stdout, errs)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<meta name="generator" content="gtformer report">`, `id="gtformer-data"`, `"sampled":50`, "'use strict'"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	other := filepath.Join(tmp, "notes.html")
	if err := os.WriteFile(other, []byte("<html>mine</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCmd("report", "--model", dir, "--out", other)
	if code != 1 || !strings.Contains(errs, "is not a gtformer report") {
		t.Errorf("over another file: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(other); string(b) != "<html>mine</html>" {
		t.Error("the other file was changed")
	}
}

// TestBenchServeCommand runs the load command small on the built-in
// corpus: a table, no errors, no leaked goroutines.
func TestBenchServeCommand(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	code, out, errs := runCmd("bench", "serve", "--model", dir, "--requests", "5", "--concurrency", "2", "--embed-batch", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	for _, want := range []string{"| GET /v1/tree | 5 | 0 |", "| GET /v1/documents/{id} | 5 | 0 |", "| POST /v1/embed (2 docs) | 5 | 0 |", "goroutines left after shutdown: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
