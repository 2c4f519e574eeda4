package embedpipe

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local paths work on every runner
	"github.com/gtformer/gtformer/corpusstates"
	"github.com/gtformer/gtformer/model"
)

// joinPath joins a directory and a file name for any Beam filesystem
// (filepath.Join would turn "gs://b" into "gs:/b").
func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// readAll reads a whole file through Beam's filesystem layer.
func readAll(ctx context.Context, path string) ([]byte, error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	return filesystem.Read(ctx, fs, path)
}

// Worker-side state, loaded once per process and shared by every DoFn
// instance in it: a worker runs several bundles (and stages) at once, and
// the model is read-only at inference.
var shared struct {
	sync.Mutex
	models map[string]*model.Model
	metas  map[string]*vocabMeta
}

// vocabMeta is a states export's meta with its vocabulary as a map.
type vocabMeta struct {
	*corpusstates.Meta
	vocab map[string]int32
}

// loadModel returns the model saved in dir (any path Beam's filesystems
// read): its files are copied to a local temporary directory and loaded.
func loadModel(ctx context.Context, dir string) (*model.Model, error) {
	shared.Lock()
	defer shared.Unlock()
	if m, ok := shared.models[dir]; ok {
		return m, nil
	}
	tmp, err := os.MkdirTemp("", "gtformer-model-")
	if err != nil {
		return nil, fmt.Errorf("embedpipe: %w", err)
	}
	defer os.RemoveAll(tmp)
	for _, name := range []string{model.ConfigFile, model.TreeFile, model.WeightsFile} {
		if err := copyToLocal(ctx, joinPath(dir, name), filepath.Join(tmp, name)); err != nil {
			return nil, fmt.Errorf("embedpipe: load model: %w", err)
		}
	}
	m, _, err := model.Load(tmp)
	if err != nil {
		return nil, fmt.Errorf("embedpipe: %s: %w", dir, err)
	}
	if m.IDF == nil {
		return nil, fmt.Errorf("embedpipe: %s: the weights carry no idf buffer", dir)
	}
	if shared.models == nil {
		shared.models = map[string]*model.Model{}
	}
	shared.models[dir] = m
	return m, nil
}

func copyToLocal(ctx context.Context, src, dst string) error {
	fs, err := filesystem.New(ctx, src)
	if err != nil {
		return err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, src)
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", src, err)
	}
	return f.Close()
}

// loadMeta returns the states export's meta in dir.
func loadMeta(ctx context.Context, dir string) (*vocabMeta, error) {
	shared.Lock()
	defer shared.Unlock()
	if m, ok := shared.metas[dir]; ok {
		return m, nil
	}
	path := joinPath(dir, corpusstates.MetaFile)
	raw, err := readAll(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("embedpipe: corpus states: %w (write them with gtformer embed --model DIR --data PATH --export-states DIR)", err)
	}
	meta, err := corpusstates.ReadMeta(bytes.NewReader(raw), path)
	if err != nil {
		return nil, fmt.Errorf("embedpipe: %w", err)
	}
	vm := &vocabMeta{Meta: meta, vocab: make(map[string]int32, len(meta.Vocab))}
	for i, w := range meta.Vocab {
		vm.vocab[w] = int32(i)
	}
	if shared.metas == nil {
		shared.metas = map[string]*vocabMeta{}
	}
	shared.metas[dir] = vm
	return vm, nil
}
