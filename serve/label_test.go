package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/gtformer/gtformer/edits"
	"github.com/gtformer/gtformer/explore"
	"github.com/gtformer/gtformer/model"
)

const labelToken = "label test token"

// editableServer copies the fixture's model folder and serves it with a
// token, renames saved into the copy by model.SaveEdits.
func editableServer(t testing.TB) (http.Handler, *explore.Index, string) {
	t.Helper()
	ix, src := fixture(t)
	dir := t.TempDir()
	for _, name := range []string{model.ConfigFile, model.TreeFile, model.WeightsFile} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	own, err := explore.Open(dir, ix.Model(), ix.Graph())
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.Token = labelToken
	opt.MaxBody = 2048
	opt.SaveEdits = func(l *edits.Log) error { return model.SaveEdits(dir, l) }
	return New(own, opt), own, dir
}

func put(h http.Handler, target, body, token string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("PUT", "http://127.0.0.1:8080"+target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// TestLabelPut: a rename with the token is written into the model folder's
// edit log (the model reloads with it) and answered with the renamed
// topic; /v1/info says the server takes edits, and the tree shows the
// label.
func TestLabelPut(t *testing.T) {
	h, ix, dir := editableServer(t)
	id := ix.Tree().Nodes[2].ID
	w := put(h, fmt.Sprintf("/v1/topics/%d/label", id), `{"label":"Graph methods"}`, labelToken)
	if w.Code != 200 {
		t.Fatalf("PUT: %d %s", w.Code, w.Body)
	}
	var tp explore.Topic
	if err := json.Unmarshal(w.Body.Bytes(), &tp); err != nil || tp.ID != id || tp.Label != "Graph methods" || tp.LabelSource != "user" {
		t.Fatalf("answer %s (%v)", w.Body, err)
	}
	m, _, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Edits.Labels()[id]; got != "Graph methods" {
		t.Errorf("the saved model's label of %d is %q", id, got)
	}
	for target, want := range map[string]string{"/v1/info": `"edits":true`, "/v1/tree": `"label":"Graph methods","label_source":"user"`} {
		req := httptest.NewRequest("GET", "http://127.0.0.1:8080"+target, nil)
		req.Header.Set("Authorization", "Bearer "+labelToken)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 || !strings.Contains(w.Body.String(), want) {
			t.Errorf("GET %s: %d, want %s in %.300s", target, w.Code, want, w.Body)
		}
	}
}

// TestLabelPutErrors: each bad request gets its status and a message, and
// nothing is written.
func TestLabelPutErrors(t *testing.T) {
	h, _, dir := editableServer(t)
	ix, _ := fixture(t)
	noToken := New(ix, DefaultOptions())
	tokenNoSave := func() http.Handler {
		opt := DefaultOptions()
		opt.Token = labelToken
		return New(ix, opt)
	}()
	for _, c := range []struct {
		name        string
		h           http.Handler
		target      string
		body, token string
		code        int
		want        string
	}{
		{"no token on the server", noToken, "/v1/topics/1/label", `{"label":"x"}`, "", 403, "needs a server started with a token"},
		{"no writable folder", tokenNoSave, "/v1/topics/1/label", `{"label":"x"}`, labelToken, 403, "not writable"},
		{"wrong token", h, "/v1/topics/1/label", `{"label":"x"}`, "guess", 401, "needs its token"},
		{"unknown topic", h, "/v1/topics/999/label", `{"label":"x"}`, labelToken, 404, "topic 999"},
		{"id not int", h, "/v1/topics/x/label", `{"label":"x"}`, labelToken, 400, "not an integer"},
		{"empty label", h, "/v1/topics/1/label", `{"label":""}`, labelToken, 400, "must not be empty"},
		{"blank label", h, "/v1/topics/1/label", `{"label":"   "}`, labelToken, 400, "must not be empty"},
		{"long label", h, "/v1/topics/1/label", `{"label":"` + strings.Repeat("a", 81) + `"}`, labelToken, 400, "at most 80 bytes"},
		{"control character", h, "/v1/topics/1/label", `{"label":"a\u0007b"}`, labelToken, 400, "control characters"},
		{"no label", h, "/v1/topics/1/label", `{}`, labelToken, 400, `"label" is missing`},
		{"label not string", h, "/v1/topics/1/label", `{"label":3}`, labelToken, 400, `must be a string`},
		{"unknown field", h, "/v1/topics/1/label", `{"label":"x","color":"red"}`, labelToken, 400, `unknown field`},
		{"not JSON", h, "/v1/topics/1/label", `label=x`, labelToken, 400, `invalid JSON`},
		{"body too big", h, "/v1/topics/1/label", `{"label":"` + strings.Repeat("a", 3000) + `"}`, labelToken, 413, `over the limit`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := put(c.h, c.target, c.body, c.token)
			var e struct{ Error string }
			if w.Code != c.code || json.Unmarshal(w.Body.Bytes(), &e) != nil || !strings.Contains(e.Error, c.want) {
				t.Errorf("%d %s, want %d and %q", w.Code, w.Body, c.code, c.want)
			}
		})
	}
	req := httptest.NewRequest("GET", "http://127.0.0.1:8080/v1/topics/1/label", nil)
	req.Header.Set("Authorization", "Bearer "+labelToken)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 405 || w.Header().Get("Allow") != "PUT" {
		t.Errorf("GET on the label: %d, Allow %q", w.Code, w.Header().Get("Allow"))
	}
	if _, err := os.Stat(filepath.Join(dir, edits.File)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("refused requests wrote %s (%v)", edits.File, err)
	}
}

// TestLabelPutUnwritable: a save refused for permission is a 403 saying
// the folder is not writable, and the label does not change.
func TestLabelPutUnwritable(t *testing.T) {
	_, own, _ := editableServer(t)
	opt := DefaultOptions()
	opt.Token = labelToken
	opt.SaveEdits = func(*edits.Log) error {
		return fmt.Errorf("model: save edits: %w", &fs.PathError{Op: "open", Path: "/models/x/edits.json", Err: fs.ErrPermission})
	}
	h := New(own, opt)
	w := put(h, "/v1/topics/1/label", `{"label":"x"}`, labelToken)
	if w.Code != 403 || !strings.Contains(w.Body.String(), "not writable") {
		t.Errorf("%d %s", w.Code, w.Body)
	}
	if n := own.Tree().Nodes[1]; n.LabelSource != "auto" {
		t.Errorf("a refused save changed the label: %+v", n)
	}
}

// TestLabelPutConcurrent: renames in parallel through the server (run
// with -race) all land in the folder's log, and the model loads.
func TestLabelPutConcurrent(t *testing.T) {
	h, _, dir := editableServer(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if w := put(h, "/v1/topics/1/label", fmt.Sprintf(`{"label":"n%d"}`, i), labelToken); w.Code != 200 {
				t.Errorf("PUT %d: %d %s", i, w.Code, w.Body)
			}
		}()
	}
	wg.Wait()
	m, _, err := model.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Edits.Len() != 8 {
		t.Errorf("the log holds %d edits, want 8", m.Edits.Len())
	}
}

// FuzzLabel sends arbitrary bodies and ids to PUT /v1/topics/{id}/label:
// every answer is JSON with a client status, and a 200 holds a label that
// passes edits.CheckLabel.
func FuzzLabel(f *testing.F) {
	h, _, _ := editableServer(f)
	for _, s := range []string{`{"label":"x"}`, `{"label":""}`, `{"label":"\u0000"}`, `{}`, `[]`, `{"label":null}`, "{\"label\":\"\xff\"}"} {
		f.Add("1", []byte(s))
	}
	f.Add("-1", []byte(`{"label":"x"}`))
	f.Add("99999999999999999999", []byte(`{"label":"x"}`))
	f.Fuzz(func(t *testing.T, id string, body []byte) {
		if strings.ContainsAny(id, "/?#%") || !utf8.ValidString(id) || id == "" || strings.TrimSpace(id) != id {
			return // not one path segment
		}
		req := httptest.NewRequest("PUT", "http://127.0.0.1/v1/topics/1/label", strings.NewReader(string(body)))
		req.URL.Path = "/v1/topics/" + id + "/label"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+labelToken)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		checkJSONAnswer(t, "PUT "+id+" "+string(body), w)
		if w.Code == 200 {
			var tp explore.Topic
			if err := json.NewDecoder(io.LimitReader(w.Body, 1<<20)).Decode(&tp); err != nil || edits.CheckLabel(tp.Label) != nil {
				t.Fatalf("200 with label %q (%v)", tp.Label, err)
			}
		}
	})
}
