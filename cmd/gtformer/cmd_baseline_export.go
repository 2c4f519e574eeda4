package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gtformer/gtformer/baseline"
	"github.com/gtformer/gtformer/corpus"
	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/metrics"
	"github.com/gtformer/gtformer/npy"
)

// ldaExportFormat names the layout of an --export folder (export.json's
// "format"); its presence marks a folder as ours to overwrite.
const ldaExportFormat = "gtformer-lda-export/1"

// ldaExportMarker is written last, so a folder holding it is complete.
const ldaExportMarker = "export.json"

// ldaExport is export.json.
type ldaExport struct {
	Format string    `json:"format"`
	Data   string    `json:"data"`
	Split  splitInfo `json:"split"`
	Scored string    `json:"scored"`
	Vocab  int       `json:"vocab_size"`
	Fitted int       `json:"fitted_docs"`
	Topics *topicRow `json:"topics"`
}

// writeLDAExport writes what the lda baseline saw and produced into dir, so
// another implementation can be fitted on the same bags and scored on the
// same words (scripts/lda_sklearn.py does so with scikit-learn):
//
//	bags_train.txt        the fitted documents' bags of words, one document a
//	                      line, "word:count" pairs by word id (ids into voc.txt)
//	bags_scored.txt       the scored documents' bags (test, or validation)
//	bags_observed.txt     their observed halves (document completion)
//	bags_heldout.txt      their held-out halves
//	beta.npy              float32 (T,V): the topics as scored
//	theta.npy             float32 (scored,T): θ of the scored documents
//	theta_completion.npy  float32 (scored,T): θ of their observed halves
//	export.json           settings and scores, written last
//
// dir is created if needed; an existing dir must be empty or hold an
// earlier export, so no file that is not ours is replaced.
func writeLDAExport(dir string, g *corpus.Graph, s *corpus.Split, r *baseline.LDAResult, meta ldaExport) error {
	if err := claimExportDir(dir); err != nil {
		return err
	}
	observed, heldOut := metrics.CompletionSplit(metrics.Subset(g, s.Test), metrics.CompletionSeed)
	bags := []struct {
		name string
		docs metrics.Docs
	}{
		{"bags_train.txt", metrics.Subset(g, s.Train)},
		{"bags_scored.txt", metrics.Subset(g, s.Test)},
		{"bags_observed.txt", observed},
		{"bags_heldout.txt", heldOut},
	}
	for _, b := range bags {
		if err := writeBags(filepath.Join(dir, b.name), b.docs); err != nil {
			return err
		}
	}
	T, V := r.Model.Topics, r.Model.Vocab
	arrays := []struct {
		name  string
		shape []int
		data  []float32
	}{
		{"beta.npy", []int{T, V}, r.Beta},
		{"theta.npy", []int{len(s.Test), T}, r.ThetaTest},
		{"theta_completion.npy", []int{len(s.Test), T}, r.ThetaCompletion},
	}
	for _, a := range arrays {
		if err := npy.Write(filepath.Join(dir, a.name), a.shape, a.data); err != nil {
			return fmt.Errorf("--export: %w", err)
		}
	}
	meta.Format, meta.Vocab, meta.Fitted = ldaExportFormat, V, len(s.Train)
	if err := atomicfile.WriteJSON(filepath.Join(dir, ldaExportMarker), meta); err != nil {
		return fmt.Errorf("--export: %w", err)
	}
	return nil
}

// claimExportDir creates dir, or accepts it when it is empty or holds an
// earlier export.
func claimExportDir(dir string) error {
	if err := checkExportDir(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--export: %w", err)
	}
	return nil
}

// checkExportDir reports whether dir may receive an export: absent, empty,
// or holding an earlier export. It changes nothing, so the command can
// check before it spends time fitting.
func checkExportDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--export: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, ldaExportMarker)); err != nil {
		return fmt.Errorf("--export: %s is not empty and holds no earlier export (%s); give a new or empty folder", dir, ldaExportMarker)
	}
	return nil
}

// writeBags writes docs as bags of words, one document a line.
func writeBags(path string, docs metrics.Docs) error {
	err := atomicfile.WriteFile(path, func(w io.Writer) error {
		var buf []int32
		var line []byte
		for i := range docs.NumDocs() {
			buf = append(buf[:0], docs.Doc(i)...)
			slices.Sort(buf)
			line = line[:0]
			for k := 0; k < len(buf); {
				j := k + 1
				for j < len(buf) && buf[j] == buf[k] {
					j++
				}
				if k > 0 {
					line = append(line, ' ')
				}
				line = fmt.Appendf(line, "%d:%d", buf[k], j-k)
				k = j
			}
			line = append(line, '\n')
			if _, err := w.Write(line); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("--export: %w", err)
	}
	return nil
}
