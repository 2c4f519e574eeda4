package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gtformer/gtformer/dataset"
	"github.com/gtformer/gtformer/internal/shared"
)

// mirror serves dataset name's files from the shared copies at the paths of
// the real manifest, with override replacing some bodies by path suffix.
func mirror(t *testing.T, name string, override map[string]string) *httptest.Server {
	t.Helper()
	src := shared.Dataset(t, name)
	files, err := dataset.Files(name)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(src), filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		bodies["/"+strings.TrimPrefix(f.URL, dataset.DefaultBaseURL)] = b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for suffix, body := range override {
			if strings.HasSuffix(r.URL.Path, suffix) {
				if body == "404" {
					http.NotFound(w, r)
				} else {
					w.Write([]byte(body))
				}
				return
			}
		}
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestDataDownloadCOVID(t *testing.T) {
	srv := mirror(t, "covid", nil)
	dir := t.TempDir()
	// Flags after the name, as the README writes it.
	code, out, errOut := runCmd("data", "download", "covid", "--to", dir, "--base-url", srv.URL)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "covid/contents.txt: downloaded, SHA-256 verified") || !strings.Contains(out, "covid: ready in") {
		t.Errorf("stdout %q", out)
	}
	code, out, errOut = runCmd("data", "stats", "--data", filepath.Join(dir, "covid"), "--json")
	if code != 0 || !strings.Contains(out, `"docs": 1500`) {
		t.Fatalf("stats on the download: exit %d, %s %s", code, out, errOut)
	}
	// A second run skips everything, even with the server gone.
	srv.Close()
	code, out, errOut = runCmd("data", "download", "--to", dir, "--base-url", srv.URL, "covid")
	if code != 0 || strings.Count(out, "skipped") != 5 {
		t.Fatalf("re-run: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestDataDownloadFailures(t *testing.T) {
	tests := []struct {
		name     string
		override map[string]string
		want     []string
	}{
		{"wrong hash", map[string]string{"covid/labels.txt": "0\n1\n"},
			[]string{"covid/labels.txt", "SHA-256 mismatch", "expected 9d7185a6fc2ca768f0da2337f2ee66d002dff50c7ebf03c59a22c4e7acbbf7dc"}},
		{"404", map[string]string{"covid/voc.txt": "404"}, []string{"covid/voc.txt", "404 Not Found"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := mirror(t, "covid", tc.override)
			dir := t.TempDir()
			t.Setenv(dataset.BaseURLEnv, srv.URL) // the environment override
			code, _, errOut := runCmd("data", "download", "covid", "--to", dir)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (stderr %q)", code, errOut)
			}
			for _, s := range tc.want {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q lacks %q", errOut, s)
				}
			}
			bad := strings.Split(tc.want[0], "/")[1]
			if _, err := os.Stat(filepath.Join(dir, "covid", bad)); !os.IsNotExist(err) {
				t.Errorf("%s written despite the failure", bad)
			}
			es, _ := os.ReadDir(filepath.Join(dir, "covid"))
			for _, e := range es {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

func TestDataDownloadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "name a dataset"},
		{[]string{"cora"}, `unknown dataset "cora"`},
		{[]string{"ml", "--to", ""}, "--to DIR must not be empty"},
		{[]string{"ml", "--bogus"}, "flag provided but not defined"},
	} {
		code, _, errOut := runCmd(append([]string{"data", "download"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
