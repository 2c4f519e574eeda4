// Package outdir guards a folder that gtformer writes its outputs into, so
// that a run can never be turned against its user's files:
//
//   - one writer at a time: Open takes an exclusive lock on a file in the
//     folder, which the kernel releases when the process ends, kill -9
//     included, so a second run into the same folder is refused at start;
//   - only what gtformer wrote is replaced or removed: the folder keeps a
//     manifest of the files gtformer wrote there, each with its SHA-256, and
//     a file that is not in it, or that changed since, is never replaced
//     or removed;
//   - a folder that cannot be written is found before any work starts.
//
// A folder written by a gtformer that kept no manifest is recognised by its
// model file (config.json in the gtformer-model format); its files of the
// known output names are then taken as gtformer's.
package outdir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gtformer/gtformer/internal/atomicfile"
)

// Names of the folder's own files.
const (
	// LockFile is locked by the process writing the folder; it holds that
	// process's id, for the message a second writer gets.
	LockFile = ".gtformer.lock"
	// ManifestFile lists the files gtformer wrote in the folder.
	ManifestFile = ".gtformer-files.json"
	// legacyModel is the model file by which a folder of an earlier
	// gtformer, which kept no manifest, is recognised.
	legacyModel = "config.json"
	// legacyCheckpoint is the checkpoint folder by which an earlier
	// gtformer's run stopped before its outputs is recognised.
	legacyCheckpoint = "checkpoint"
)

const manifestFormat = "gtformer-files/1"

// manifest is ManifestFile: each file gtformer wrote, by name relative to
// the folder, with the SHA-256 of its content as written.
type manifest struct {
	Format string            `json:"format"`
	Files  map[string]string `json:"files"`
}

// Dir is an output folder claimed by Open. Its methods are not safe for
// concurrent use.
type Dir struct {
	path   string
	lock   *os.File
	files  map[string]string // name → SHA-256; "" for a legacy folder's files
	legacy bool
	known  []string
}

// Open claims dir for writing, creating it (and its parents) when absent.
// known lists the names of the files gtformer may write there; in a folder
// without a manifest, only those are taken as gtformer's, and only when
// the folder holds a gtformer model. Open refuses:
//   - a path that is not a folder, or a symbolic link that leads nowhere;
//   - a folder that cannot be written (checked by writing a file);
//   - a folder another process is writing (ErrBusy);
//   - a non-empty folder that gtformer did not write (ErrForeign).
//
// Close releases the lock.
func Open(dir string, known []string) (*Dir, error) {
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			to, _ := os.Readlink(dir)
			return nil, fmt.Errorf("outdir: %s is a symbolic link to %s, which does not exist", dir, to)
		}
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("outdir: %s exists and is not a folder", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("outdir: create %s: %w", dir, err)
	}
	if err := probe(dir); err != nil {
		return nil, err
	}
	d := &Dir{path: dir, known: known}
	if err := d.takeLock(); err != nil {
		return nil, err
	}
	if err := d.readManifest(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// ErrBusy is returned (wrapped) by Open when another process writes the
// folder.
var ErrBusy = errors.New("outdir: folder in use")

// ErrForeign is returned (wrapped) by Open for a non-empty folder that
// gtformer did not write, and by CheckReplace for a file it did not write.
var ErrForeign = errors.New("outdir: not written by gtformer")

// probe writes and removes a file in dir, so that a read-only folder or
// file system is found before hours of training rather than at the first
// checkpoint.
func probe(dir string) error {
	f, err := os.CreateTemp(dir, ".gtformer-probe-*")
	if err != nil {
		return fmt.Errorf("outdir: %s is not writable: %w", dir, err)
	}
	name := f.Name()
	_, werr := f.Write([]byte("probe\n"))
	cerr := f.Close()
	os.Remove(name)
	if werr != nil || cerr != nil {
		return fmt.Errorf("outdir: %s is not writable: %w", dir, errors.Join(werr, cerr))
	}
	return nil
}

// readManifest loads the manifest, or decides what a folder without one is.
func (d *Dir) readManifest() error {
	path := filepath.Join(d.path, ManifestFile)
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		var m manifest
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil || m.Format != manifestFormat {
			return fmt.Errorf("outdir: %s: not a gtformer manifest (%v): remove it only if gtformer wrote this folder", path, err)
		}
		d.files = m.Files
		if d.files == nil {
			d.files = map[string]string{}
		}
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("outdir: %w", err)
	}
	d.files = map[string]string{}
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return fmt.Errorf("outdir: %w", err)
	}
	var foreign []string
	for _, e := range entries {
		if n := e.Name(); n != LockFile && !strings.HasPrefix(n, ".gtformer-probe-") {
			foreign = append(foreign, n)
		}
	}
	if len(foreign) == 0 {
		return d.save() // empty: ours from now on
	}
	if isLegacyModel(filepath.Join(d.path, legacyModel)) || isLegacyCheckpoint(filepath.Join(d.path, legacyCheckpoint)) {
		d.legacy = true
		for _, n := range foreign {
			if slices.Contains(d.known, n) {
				d.files[n] = ""
			}
		}
		return nil
	}
	if len(foreign) > 5 {
		foreign = append(foreign[:5], "...")
	}
	return fmt.Errorf("%w: %s holds files gtformer did not write (%s): choose an empty or new folder",
		ErrForeign, d.path, strings.Join(foreign, ", "))
}

// isLegacyModel reports whether path is a model file of an earlier
// gtformer (the folder then is one gtformer wrote before manifests).
func isLegacyModel(path string) bool {
	raw, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var head struct {
		Format string `json:"format"`
	}
	return json.Unmarshal(raw, &head) == nil && strings.HasPrefix(head.Format, "gtformer-model/")
}

// isLegacyCheckpoint reports whether path is a checkpoint folder of an
// earlier gtformer: it holds only checkpoints ("NNNNNN.epoch-E...", each
// with a manifest.json) and their temporary folders.
func isLegacyCheckpoint(path string) bool {
	entries, err := os.ReadDir(path)
	if err != nil || len(entries) == 0 {
		return false
	}
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, ".") {
			continue
		}
		if !e.IsDir() || !strings.Contains(n, ".epoch-") {
			return false
		}
		if _, err := os.Stat(filepath.Join(path, n, "manifest.json")); err != nil {
			return false
		}
	}
	return true
}

// Own records names (relative to the folder) as gtformer's before they
// are written, for what is rewritten piece by piece rather than as one
// file (the checkpoint folder): their content is not hashed, so they stay
// replaceable by gtformer.
func (d *Dir) Own(names ...string) error {
	for _, n := range names {
		if _, ok := d.files[n]; !ok {
			if err := d.CheckReplace(n); err != nil {
				return err
			}
			d.files[n] = ""
		}
	}
	return d.save()
}

// Path is the folder's path as given to Open.
func (d *Dir) Path() string { return d.path }

// CheckReplace reports whether name (relative to the folder) may be
// written: it is absent, or gtformer wrote it and it is unchanged since.
// Call it for every file a run will write before the run starts.
func (d *Dir) CheckReplace(name string) error {
	path := filepath.Join(d.path, name)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("outdir: %w", err)
	}
	want, ours := d.files[name]
	if !ours {
		return fmt.Errorf("%w: %s exists and gtformer did not write it: not replacing it (move it, or choose another folder)", ErrForeign, path)
	}
	if want == "" {
		return nil // owned without a hash (Own, or an earlier gtformer's file)
	}
	if fi.IsDir() {
		return fmt.Errorf("%w: %s is a folder", ErrForeign, path)
	}
	got, err := fileSHA256(path)
	if err != nil {
		return fmt.Errorf("outdir: %w", err)
	}
	if got != want {
		return fmt.Errorf("%w: %s changed since gtformer wrote it: not replacing it (move it, or choose another folder)", ErrForeign, path)
	}
	return nil
}

// Record notes that gtformer has just written the named files (relative
// to the folder), with their current content, and saves the manifest.
func (d *Dir) Record(names ...string) error {
	for _, n := range names {
		sum, err := fileSHA256(filepath.Join(d.path, n))
		if err != nil {
			return fmt.Errorf("outdir: record %s: %w", n, err)
		}
		d.files[n] = sum
	}
	return d.save()
}

// RemoveStale removes the files gtformer wrote in an earlier run and this
// run did not (written): they would sit beside this run's outputs as if
// they were its own. A recorded file that changed since it was written is
// left alone. It returns the names removed.
func (d *Dir) RemoveStale(written []string) ([]string, error) {
	var removed []string
	for _, n := range slices.Sorted(mapKeys(d.files)) {
		if slices.Contains(written, n) {
			continue
		}
		if err := d.CheckReplace(n); err != nil {
			continue // changed by someone else since: theirs now
		}
		path := filepath.Join(d.path, n)
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			delete(d.files, n)
			continue
		}
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(path); err != nil {
			return removed, fmt.Errorf("outdir: %w", err)
		}
		delete(d.files, n)
		removed = append(removed, n)
	}
	return removed, d.save()
}

func (d *Dir) save() error {
	err := atomicfile.WriteJSON(filepath.Join(d.path, ManifestFile), manifest{Format: manifestFormat, Files: d.files})
	if err != nil {
		return fmt.Errorf("outdir: %w", err)
	}
	return nil
}

// Close releases the folder's lock. The lock file stays: removing it
// while another process waits to lock it would let two writers in.
func (d *Dir) Close() error {
	if d == nil || d.lock == nil {
		return nil
	}
	err := d.lock.Close() // closing the descriptor releases the lock
	d.lock = nil
	return err
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
