// Package dataset downloads the paper's benchmark datasets (ml, pl, covid,
// ds) from their public addresses into the dataset folder format, checking
// every file against its SHA-256 and writing it atomically.
package dataset

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/internal/progress"
)

// Kind says how a manifest entry's URL maps to files on disk.
type Kind int

const (
	// Plain: the URL is the file; SHA256 is the file's hash.
	Plain Kind = iota
	// Member: the URL is a zip and the file is its member Member; SHA256 is
	// the member's hash (the zip's own hash is not pinned).
	Member
	// Archive: the URL is a zip kept at Path, SHA256 is the zip's hash, and
	// all its members are extracted beside it (their paths inside the zip,
	// e.g. ds/contents.txt).
	Archive
)

// File is one manifest entry.
type File struct {
	Dataset string // "ml", "pl", "covid", "ds"
	Path    string // slash-separated path under the target folder, e.g. "ml/contents.txt"
	Kind    Kind
	Member  string // path inside the zip, for Kind Member
	SHA256  string // lower-case hex
	URL     string
}

// DefaultBaseURL is the prefix of every manifest URL; a Downloader's
// BaseURL replaces it (mirrors, tests).
const DefaultBaseURL = "https://raw.githubusercontent.com/"

// BaseURLEnv names the environment variable the command reads for a base
// URL override.
const BaseURLEnv = "GTFORMER_DATA_BASE_URL"

// maxFileSize bounds a single downloaded or extracted file (the largest
// real one is about 8 MB), so a hostile zip cannot fill the disk.
const maxFileSize = 1 << 30

// Names lists the datasets in the manifest.
func Names() []string {
	var names []string
	for _, f := range manifest {
		if !slices.Contains(names, f.Dataset) {
			names = append(names, f.Dataset)
		}
	}
	return names
}

// Files returns the manifest entries of dataset name.
func Files(name string) ([]File, error) {
	var fs []File
	for _, f := range manifest {
		if f.Dataset == name {
			fs = append(fs, f)
		}
	}
	if fs == nil {
		return nil, fmt.Errorf("dataset: unknown dataset %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return fs, nil
}

// Downloader fetches manifest entries into a folder.
type Downloader struct {
	Client   *http.Client // nil: http.DefaultClient
	BaseURL  string       // replaces DefaultBaseURL in every URL when set
	Progress io.Writer    // progress bars, or nil for none
	Log      io.Writer    // one line per file (skipped, written), or nil
}

// url returns the address to fetch for f.
func (d *Downloader) url(f File) string {
	if d.BaseURL == "" || !strings.HasPrefix(f.URL, DefaultBaseURL) {
		return f.URL
	}
	return strings.TrimSuffix(d.BaseURL, "/") + "/" + strings.TrimPrefix(f.URL, DefaultBaseURL)
}

func (d *Downloader) logf(format string, a ...any) {
	if d.Log != nil {
		fmt.Fprintf(d.Log, format+"\n", a...)
	}
}

// Fetch makes every file of files present under dir with its pinned hash:
// files already there with the right hash are skipped, the others are
// downloaded, verified and written atomically. Nothing unverified is left
// behind: a hash mismatch, HTTP error or short body fails that file before
// anything is renamed into place. Errors read "dataset: PATH: PROBLEM".
func (d *Downloader) Fetch(ctx context.Context, dir string, files []File) error {
	for _, f := range files {
		if err := d.fetch(ctx, dir, f); err != nil {
			return fmt.Errorf("dataset: %s: %w", f.Path, err)
		}
	}
	return nil
}

func (d *Downloader) fetch(ctx context.Context, dir string, f File) error {
	dest, err := localPath(dir, f.Path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	if ok, err := hasHash(dest, f.SHA256); err != nil {
		return err
	} else if ok {
		d.logf("%s: present with the right SHA-256, skipped", f.Path)
		if f.Kind == Archive {
			return d.extractAll(dir, dest, false)
		}
		return nil
	}
	if _, err := os.Lstat(dest); err == nil {
		// Not the pinned file, and nothing says gtformer wrote it (a
		// download is written whole or not at all): the user's to keep.
		return fmt.Errorf("%s exists and is not the pinned file (another SHA-256): not replacing it; move it away to download it again", dest)
	}

	switch f.Kind {
	case Plain, Archive:
		out, err := atomicfile.Create(dest)
		if err != nil {
			return err
		}
		defer out.Abort()
		sum, err := d.get(ctx, f, out)
		if err != nil {
			return err
		}
		if err := checkSum(f, sum); err != nil {
			return err
		}
		if err := out.Commit(); err != nil {
			return err
		}
		d.logf("%s: downloaded, SHA-256 verified", f.Path)
		if f.Kind == Archive {
			return d.extractAll(dir, dest, true)
		}
		return nil

	case Member:
		// The zip goes to a temporary file (zip needs random access) that
		// is removed whatever happens.
		tmp, err := os.CreateTemp(filepath.Dir(dest), ".download-*.zip")
		if err != nil {
			return err
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		if _, err := d.get(ctx, f, tmp); err != nil {
			return err
		}
		size, err := tmp.Seek(0, io.SeekCurrent)
		if err != nil {
			return err
		}
		zr, err := zip.NewReader(tmp, size)
		if err != nil {
			return fmt.Errorf("%s is not a valid zip: %w", d.url(f), err)
		}
		zf := findMember(zr, f.Member)
		if zf == nil {
			return fmt.Errorf("%s has no member %s", d.url(f), f.Member)
		}
		if err := extract(zf, dest, f); err != nil {
			return err
		}
		d.logf("%s: extracted from %s, SHA-256 verified", f.Path, path.Base(f.URL))
		return nil
	}
	return fmt.Errorf("unknown manifest kind %d", f.Kind)
}

// get downloads f's URL into w with a progress bar and returns the SHA-256
// of the body. A non-200 status, a transport error or a body shorter than
// its Content-Length is an error.
func (d *Downloader) get(ctx context.Context, f File, w io.Writer) ([]byte, error) {
	u := d.url(f)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	client := d.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download %s: HTTP %s", u, resp.Status)
	}
	h := sha256.New()
	dst := io.MultiWriter(w, h)
	var bar *progress.Bar
	if d.Progress != nil {
		bar = progress.New(d.Progress, f.Path, resp.ContentLength, progress.Bytes())
		dst = io.MultiWriter(dst, bar)
	}
	n, err := io.Copy(dst, io.LimitReader(resp.Body, maxFileSize+1))
	if bar != nil {
		bar.Finish()
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("download %s: %w after %d bytes", u, err, n)
	case n > maxFileSize:
		return nil, fmt.Errorf("download %s: larger than %d bytes", u, int64(maxFileSize))
	case resp.ContentLength >= 0 && n != resp.ContentLength:
		return nil, fmt.Errorf("download %s: truncated: %d of %d bytes", u, n, resp.ContentLength)
	}
	return h.Sum(nil), nil
}

// checkSum compares a computed hash with f's pinned one.
func checkSum(f File, sum []byte) error {
	if got := hex.EncodeToString(sum); got != f.SHA256 {
		return fmt.Errorf("SHA-256 mismatch: expected %s, got %s (from %s); nothing was written", f.SHA256, got, f.URL)
	}
	return nil
}

// hasHash reports whether path exists with the given SHA-256.
func hasHash(path, want string) (bool, error) {
	fh, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return false, err
	}
	return hex.EncodeToString(h.Sum(nil)) == want, nil
}

// localPath joins a slash-separated relative path to dir, refusing paths
// that would escape it (absolute, "..": a zip-slip guard).
func localPath(dir, rel string) (string, error) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("refusing unsafe path %q", rel)
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), nil
}

func findMember(zr *zip.Reader, name string) *zip.File {
	for _, zf := range zr.File {
		if zf.Name == name {
			return zf
		}
	}
	return nil
}

// extract writes zip member zf to dest atomically; when f has a hash the
// member must match it.
func extract(zf *zip.File, dest string, f File) error {
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("zip member %s: %w", zf.Name, err)
	}
	defer rc.Close()
	out, err := atomicfile.Create(dest)
	if err != nil {
		return err
	}
	defer out.Abort()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(rc, maxFileSize+1))
	if err != nil {
		return fmt.Errorf("zip member %s: %w", zf.Name, err)
	}
	if n > maxFileSize {
		return fmt.Errorf("zip member %s: larger than %d bytes", zf.Name, int64(maxFileSize))
	}
	if f.SHA256 != "" && f.Kind == Member {
		if err := checkSum(f, h.Sum(nil)); err != nil {
			return fmt.Errorf("zip member %s: %w", zf.Name, err)
		}
	}
	return out.Commit()
}

// extractAll extracts every regular member of the zip at zipPath into dir,
// each at its path inside the zip. Unless force is set, members already on
// disk are kept (their hashes are not pinned; the verified zip is).
func (d *Downloader) extractAll(dir, zipPath string, force bool) error {
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return fmt.Errorf("open zip: %w", err)
	}
	defer zr.Close()
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() {
			continue
		}
		dest, err := localPath(dir, zf.Name)
		if err != nil {
			return fmt.Errorf("zip member: %w", err)
		}
		if !force {
			if _, err := os.Stat(dest); err == nil {
				continue
			}
		}
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		if err := extract(zf, dest, File{}); err != nil {
			return err
		}
		d.logf("%s: extracted", zf.Name)
	}
	return nil
}
