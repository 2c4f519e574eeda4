package dataset

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gtformer/gtformer/internal/shared"
)

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// zipOf builds a zip holding the given members.
func zipOf(t testing.TB, members map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range members {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// server serves bodies by URL path; "truncate:" before a body makes it
// announce more bytes than it sends. It counts requests.
type server struct {
	*httptest.Server
	hits atomic.Int64
}

func newServer(t testing.TB, bodies map[string][]byte) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if rest, cut := bytes.CutPrefix(b, []byte("truncate:")); cut {
			w.Header().Set("Content-Length", "1000000")
			w.Write(rest)
			return // the server closes the connection short of the announced length
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

// leftovers lists every file under dir except those expected.
func leftovers(t *testing.T, dir string, expect ...string) []string {
	t.Helper()
	var extra []string
	filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			found := false
			for _, e := range expect {
				found = found || filepath.ToSlash(rel) == e
			}
			if !found {
				extra = append(extra, rel)
			}
		}
		return nil
	})
	return extra
}

func TestFetch(t *testing.T) {
	plain := []byte("0 1 2\n3 4\n")
	glove := []byte("0.1 0.2\n0.3 0.4\n")
	memberZip := zipOf(t, map[string][]byte{"x/vectors.txt": glove, "x/other.txt": []byte("ignored")})
	archive := zipOf(t, map[string][]byte{"y/contents.txt": plain, "y/voc.txt": []byte("a\nb\n")})
	evil := zipOf(t, map[string][]byte{"../evil.txt": plain})
	srv := newServer(t, map[string][]byte{
		"/o/r/c/plain.txt":   plain,
		"/o/r/c/wrong.txt":   []byte("tampered\n"),
		"/o/r/c/short.txt":   append([]byte("truncate:"), plain...),
		"/o/r/c/member.zip":  memberZip,
		"/o/r/c/archive.zip": archive,
		"/o/r/c/evil.zip":    evil,
		"/o/r/c/notazip.zip": plain,
	})
	url := func(p string) string { return DefaultBaseURL + "o/r/c/" + p }

	tests := []struct {
		name    string
		file    File
		want    map[string][]byte // files expected afterwards
		wantErr []string          // substrings of the error; nil for success
	}{
		{"plain", File{Path: "x/plain.txt", SHA256: hashOf(plain), URL: url("plain.txt")},
			map[string][]byte{"x/plain.txt": plain}, nil},
		{"wrong hash", File{Path: "x/wrong.txt", SHA256: hashOf(plain), URL: url("wrong.txt")},
			nil, []string{"x/wrong.txt", "SHA-256 mismatch", "expected " + hashOf(plain), "got " + hashOf([]byte("tampered\n"))}},
		{"404", File{Path: "x/missing.txt", SHA256: hashOf(plain), URL: url("missing.txt")},
			nil, []string{"x/missing.txt", "404"}},
		{"truncated body", File{Path: "x/short.txt", SHA256: hashOf(plain), URL: url("short.txt")},
			nil, []string{"x/short.txt", "unexpected EOF"}},
		{"zip member", File{Path: "x/vectors.txt", Kind: Member, Member: "x/vectors.txt", SHA256: hashOf(glove), URL: url("member.zip")},
			map[string][]byte{"x/vectors.txt": glove}, nil},
		{"zip member wrong hash", File{Path: "x/vectors.txt", Kind: Member, Member: "x/vectors.txt", SHA256: hashOf(plain), URL: url("member.zip")},
			nil, []string{"x/vectors.txt", "SHA-256 mismatch"}},
		{"zip member absent", File{Path: "x/nope.txt", Kind: Member, Member: "x/nope.txt", SHA256: hashOf(glove), URL: url("member.zip")},
			nil, []string{"has no member x/nope.txt"}},
		{"not a zip", File{Path: "x/v.txt", Kind: Member, Member: "x/v.txt", SHA256: hashOf(glove), URL: url("notazip.zip")},
			nil, []string{"not a valid zip"}},
		{"archive", File{Path: "archive.zip", Kind: Archive, SHA256: hashOf(archive), URL: url("archive.zip")},
			map[string][]byte{"archive.zip": archive, "y/contents.txt": plain, "y/voc.txt": []byte("a\nb\n")}, nil},
		{"archive wrong hash", File{Path: "archive.zip", Kind: Archive, SHA256: hashOf(plain), URL: url("archive.zip")},
			nil, []string{"archive.zip", "SHA-256 mismatch"}},
		{"archive escaping the folder", File{Path: "evil.zip", Kind: Archive, SHA256: hashOf(evil), URL: url("evil.zip")},
			map[string][]byte{"evil.zip": evil}, []string{"unsafe path"}},
		{"unsafe manifest path", File{Path: "../up.txt", SHA256: hashOf(plain), URL: url("plain.txt")},
			nil, []string{"unsafe path"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "data")
			var log bytes.Buffer
			d := &Downloader{BaseURL: srv.URL, Log: &log}
			err := d.Fetch(context.Background(), dir, []File{tc.file})
			if tc.wantErr == nil && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "dataset: "+tc.file.Path+": ") {
				t.Errorf("err = %v, want it to start with the package and the file", err)
			}
			for _, s := range tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), s) {
					t.Fatalf("err = %v, want one containing %q", err, s)
				}
			}
			for p, body := range tc.want {
				got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
				if err != nil || !bytes.Equal(got, body) {
					t.Errorf("%s = %q (%v), want %q", p, got, err, body)
				}
			}
			var expect []string
			for p := range tc.want {
				expect = append(expect, p)
			}
			if extra := leftovers(t, root, prefixed("data/", expect)...); len(extra) > 0 {
				t.Errorf("left behind: %v", extra)
			}
		})
	}
}

func prefixed(pre string, ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = pre + p
	}
	return out
}

func TestFetchSkipsVerifiedFiles(t *testing.T) {
	body := []byte("hello\n")
	archive := zipOf(t, map[string][]byte{"z/a.txt": body})
	srv := newServer(t, map[string][]byte{"/o/a.txt": body, "/o/z.zip": archive})
	files := []File{
		{Path: "a.txt", SHA256: hashOf(body), URL: DefaultBaseURL + "o/a.txt"},
		{Path: "z.zip", Kind: Archive, SHA256: hashOf(archive), URL: DefaultBaseURL + "o/z.zip"},
	}
	dir := t.TempDir()
	d := &Downloader{BaseURL: srv.URL}
	if err := d.Fetch(context.Background(), dir, files); err != nil {
		t.Fatal(err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Fatalf("%d requests for 2 files", n)
	}
	// Second run: nothing fetched; a removed archive member is re-extracted.
	os.Remove(filepath.Join(dir, "z", "a.txt"))
	var log bytes.Buffer
	d.Log = &log
	if err := d.Fetch(context.Background(), dir, files); err != nil {
		t.Fatal(err)
	}
	if n := srv.hits.Load(); n != 2 {
		t.Errorf("second run made %d more requests", n-2)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "z", "a.txt")); !bytes.Equal(b, body) {
		t.Error("archive member not restored")
	}
	if !strings.Contains(log.String(), "a.txt: present with the right SHA-256, skipped") {
		t.Errorf("log %q", log.String())
	}
	// A present file with other content is not gtformer's to replace: it
	// is refused, left as it was, and nothing is downloaded.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("edited"), 0o644)
	err := d.Fetch(context.Background(), dir, files[:1])
	if err == nil || !strings.Contains(err.Error(), "not the pinned file") {
		t.Errorf("a file of other content: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "edited" || srv.hits.Load() != 2 {
		t.Errorf("the file became %q (%d requests)", b, srv.hits.Load())
	}
}

func TestFilesAndNames(t *testing.T) {
	if got := strings.Join(Names(), ","); got != "ml,pl,covid,ds" {
		t.Errorf("Names() = %s", got)
	}
	for _, tc := range []struct {
		name  string
		count int
	}{{"ml", 6}, {"pl", 6}, {"covid", 5}, {"ds", 1}} {
		fs, err := Files(tc.name)
		if err != nil || len(fs) != tc.count {
			t.Errorf("Files(%s): %d files, %v; want %d", tc.name, len(fs), err, tc.count)
		}
	}
	if _, err := Files("cora"); err == nil || !strings.Contains(err.Error(), "known: ml, pl, covid, ds") {
		t.Errorf("unknown dataset: %v", err)
	}
}

// TestManifestMatchesShared checks the embedded table against
// ../shared/data/MANIFEST.txt, line by line.
func TestManifestMatchesShared(t *testing.T) {
	f, err := os.Open(shared.Path(t, "data/MANIFEST.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	k := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if k >= len(manifest) {
			t.Fatalf("MANIFEST.txt has more entries than the embedded table")
		}
		m := manifest[k]
		k++
		if m.SHA256 != fields[0] || m.Path != fields[1] || m.URL != fields[2] {
			t.Errorf("entry %d: embedded %s %s %s, MANIFEST.txt %s %s %s", k, m.SHA256, m.Path, m.URL, fields[0], fields[1], fields[2])
		}
		if m.Kind == Member && !strings.Contains(line, "inside the zip: "+m.Member+")") {
			t.Errorf("entry %d: member %s not named in %q", k, m.Member, line)
		}
	}
	if k != len(manifest) {
		t.Errorf("MANIFEST.txt has %d entries, the embedded table %d", k, len(manifest))
	}
}

// TestFetchSharedML downloads ml through the real manifest from a local
// server that serves the shared copies (the GloVe file inside a zip, as
// upstream), so the real hashes are exercised end to end.
func TestFetchSharedML(t *testing.T) {
	src := shared.Dataset(t, "ml")
	files, err := Files("ml")
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(src), filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatal(err)
		}
		p := "/" + strings.TrimPrefix(f.URL, DefaultBaseURL)
		if f.Kind == Member {
			b = zipOf(t, map[string][]byte{f.Member: b})
		}
		bodies[p] = b
	}
	srv := newServer(t, bodies)
	dir := t.TempDir()
	var bars bytes.Buffer
	d := &Downloader{BaseURL: srv.URL + "/", Progress: &bars}
	if err := d.Fetch(context.Background(), dir, files); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		ok, err := hasHash(filepath.Join(dir, filepath.FromSlash(f.Path)), f.SHA256)
		if !ok || err != nil {
			t.Errorf("%s not written with its hash (%v)", f.Path, err)
		}
	}
	if !strings.Contains(bars.String(), "ml/contents.txt") {
		t.Errorf("no progress output: %q", bars.String())
	}
	if extra := leftovers(t, dir, prefixed("", pathsOf(files))...); len(extra) > 0 {
		t.Errorf("left behind: %v", extra)
	}
}

func pathsOf(fs []File) []string {
	var ps []string
	for _, f := range fs {
		ps = append(ps, f.Path)
	}
	return ps
}

func ExampleFiles() {
	files, _ := Files("covid")
	for _, f := range files {
		fmt.Println(f.Path, f.SHA256[:12])
	}
	// Output:
	// covid/contents.txt 0493207c33cd
	// covid/label_names.txt 5f8f4190d64e
	// covid/labels.txt 9d7185a6fc2c
	// covid/links.txt 21c11fdc8490
	// covid/voc.txt 751850bf2c0d
}
