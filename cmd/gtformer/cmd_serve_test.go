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
	"github.com/gtformer/gtformer/model"
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
	w := postEmbed(serve.New(ix, serve.DefaultOptions()), body)
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

// postEmbed sends body to POST /v1/embed of h as a local client does.
func postEmbed(h http.Handler, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("POST", "http://127.0.0.1:8080/v1/embed", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestServeEmbedSameParser: POST /v1/embed and `embed --new` accept the
// same documents and refuse the same ones with the same words (the file's
// line, or the request's docs[i], in front).
func TestServeEmbedSameParser(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	var d dataFlags
	d.registerLoad(flag.NewFlagSet("serve", flag.ContinueOnError))
	m, _, lg, _, err := loadModelAndCorpus(dir, &d, false, io.Discard, "split")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := explore.Open(dir, m, lg)
	if err != nil {
		t.Fatal(err)
	}
	h := serve.New(ix, serve.DefaultOptions())
	tmp := t.TempDir()
	for _, c := range []struct {
		name, doc string
		err       string // "" when both accept it
	}{
		{"plain", `{"id": "x", "text": "the striker scored a goal", "links": ["3"]}`, ""},
		{"label", `{"id": "x", "text": "bake the bread", "label": "food"}`, ""},
		{"integer id", `{"id": 123456789, "text": "bread"}`, ""},
		{"id not UTF-8", "{\"id\": \"\xff\xfe\", \"text\": \"bread\"}", "not valid UTF-8 (byte 9 of the line is 0xff): write the documents as UTF-8"},
		{"text not UTF-8", "{\"id\": \"x\", \"text\": \"caf\xe9\"}", "not valid UTF-8 (byte 25 of the line is 0xe9): write the documents as UTF-8"},
		{"unknown field", `{"id": "x", "text": "a", "title": "t"}`, `unknown field "title"`},
		{"no text", `{"id": "x"}`, `document "x" has no "text"`},
		{"float id", `{"id": 1.5, "text": "a"}`, "id: want a string or an integer, got 1.5"},
		{"empty id", `{"id": "", "text": "a"}`, "id: empty"},
		{"bad link", `{"id": "x", "text": "a", "links": [true]}`, "link: want a string or an integer"},
		{"corpus id", `{"id": "3", "text": "a"}`, `id "3" reads as document 3 of the corpus`},
		{"not an object", `[1]`, `want a JSON object {"id": ..., "text": ..., "links": [...]}, got array`},
		{"text a number", `{"id": "x", "text": 3}`, `field "text" must be a string, got number`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(tmp, strings.ReplaceAll(c.name, " ", "-")+".jsonl")
			if err := os.WriteFile(in, []byte(c.doc+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errs := runCmd("embed", "--model", dir, "--new", in, "--out", in+".npy")
			w := postEmbed(h, `{"docs": [`+c.doc+`]}`)
			if c.err == "" {
				if code != 0 || w.Code != 200 {
					t.Fatalf("embed --new: exit %d %s; POST: %d %s", code, errs, w.Code, w.Body)
				}
				return
			}
			var e struct{ Error string }
			json.Unmarshal(w.Body.Bytes(), &e)
			_, cmdMsg, _ := strings.Cut(errs, in+":1: ")
			cmdMsg = strings.TrimSpace(cmdMsg)
			if code != 1 || !strings.Contains(cmdMsg, c.err) {
				t.Errorf("embed --new: exit %d, %q; want %q", code, errs, c.err)
			}
			// Past the place (the file's line, the request's document),
			// the two messages are the same words.
			if w.Code != 400 || e.Error != "docs[0]: "+cmdMsg {
				t.Errorf("POST: %d %q; embed --new says %q", w.Code, e.Error, cmdMsg)
			}
		})
	}
}

// TestServeSecurityFlags: binding beyond this machine needs a token or an
// explicit --insecure-no-token; the token flags are checked before the
// model loads.
func TestServeSecurityFlags(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	tokFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokFile, []byte("  s3cret \nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--addr", ":8080"}, 2, "binds every interface of this machine, and without a token"},
		{[]string{"--addr", "0.0.0.0:8080"}, 2, "binds every interface"},
		{[]string{"--addr", "[::]:8080"}, 2, "binds every interface"},
		{[]string{"--addr", "192.168.1.5:8080"}, 2, "binds 192.168.1.5, which other machines may reach"},
		{[]string{"--addr", "myhost.lan:8080"}, 2, "--insecure-no-token"},
		{[]string{"--addr", "8080"}, 2, "want HOST:PORT"},
		{[]string{"--token", "a", "--token-file", tokFile}, 2, "not both"},
		{[]string{"--token-file", empty}, 1, "the first line is empty"},
		{[]string{"--token-file", none}, 1, "serve: --token-file"},
		{[]string{"--token", "a\x01b"}, 2, `the token holds '\x01': use printable ASCII`},
		{[]string{"--token", "clé"}, 2, `the token holds 'é'`},
		{[]string{"--allowed-host", "a,,b"}, 2, "an empty name"},
		// Allowed: the model is then missing (exit 1, its path named).
		{[]string{"--addr", ":8080", "--insecure-no-token"}, 1, none},
		{[]string{"--addr", ":8080", "--token-file", tokFile}, 1, none},
		{[]string{"--addr", "localhost:8080"}, 1, none},
		{[]string{"--addr", "[::1]:8080", "--allowed-host", "a.lan,b.lan", "--allowed-host", "c.lan"}, 1, none},
	} {
		args := append([]string{"serve", "--model", none}, c.args...)
		code, _, errs := runCmd(args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// lineWriter hands the command's output to the test through a pipe.
type lineWriter struct{ w *io.PipeWriter }

func (l lineWriter) Write(p []byte) (int, error) { return l.w.Write(p) }

// startServe runs gtformer serve with args (and --model dir, --addr
// 127.0.0.1:0) and returns its base URL, its first line and a function
// that stops it with SIGTERM and checks that it ends with exit 0.
func startServe(t *testing.T, dir string, args ...string) (base, line string, stop func()) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- run(append([]string{"serve", "--model", dir, "--addr", "127.0.0.1:0"}, args...), lineWriter{pw}, &stderr)
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), " on http://"); ok {
			base, line = "http://"+strings.TrimSuffix(strings.Fields(rest)[0], "/"), sc.Text()
			break
		}
	}
	if base == "" {
		t.Fatalf("no serving line; stderr: %s", stderr.String())
	}
	go io.Copy(io.Discard, pr) // the "stopped" line
	return base, line, func() {
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
}

// TestServeCommand runs gtformer serve on a free port, uses it, and stops
// it with SIGTERM: the command ends without error after a graceful
// shutdown.
func TestServeCommand(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	base, _, stop := startServe(t, dir)
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
	stop()
}

// TestServeCommandToken: with --token-file the API needs the token, the
// page does not, the serving line says how to open the page without
// printing the token, and an --allowed-host name is answered.
func TestServeCommandToken(t *testing.T) {
	dir, _ := untrainedModelDir(t)
	tokFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokFile, []byte("t0ken-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base, line, stop := startServe(t, dir, "--token-file", tokFile, "--allowed-host", "gtformer.test")
	defer stop()
	if strings.Contains(line, "t0ken") || !strings.Contains(line, "/?token=TOKEN") {
		t.Errorf("serving line %q", line)
	}
	for _, c := range []struct {
		path, host, auth string
		code             int
	}{
		{"/v1/tree", "", "", 401},
		{"/v1/tree", "", "Bearer t0ken-from-file", 200},
		{"/v1/tree", "gtformer.test", "Bearer t0ken-from-file", 200},
		{"/v1/tree", "evil.example", "Bearer t0ken-from-file", 421},
		{"/", "", "", 200},
	} {
		req, _ := http.NewRequest("GET", base+c.path, nil)
		if c.host != "" {
			req.Host = c.host
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.code {
			t.Errorf("GET %s (Host %q, %q): %d, want %d", c.path, c.host, c.auth, res.StatusCode, c.code)
		}
	}
	// With a token, a rename is written into the model folder's edit log,
	// and gtformer topics shows it.
	req, _ := http.NewRequest("PUT", base+"/v1/topics/1/label", strings.NewReader(`{"label":"Renamed here"}`))
	req.Header.Set("Authorization", "Bearer t0ken-from-file")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("PUT label: %d", res.StatusCode)
	}
	m, _, err := model.Load(dir)
	if err != nil || m.Edits.Labels()[1] != "Renamed here" {
		t.Errorf("the served folder's model after the rename: %v, labels %v", err, m.Edits.Labels())
	}
	if code, out, errs := runCmd("topics", "--model", dir); code != 0 || !strings.Contains(out, `1 L1 (`) || !strings.Contains(out, `"Renamed here"`) {
		t.Errorf("topics after the rename: exit %d %s\n%s", code, errs, out)
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
