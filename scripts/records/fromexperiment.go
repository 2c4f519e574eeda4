package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/outputs"
)

// recordHeader is a record CSV's header, in its order (README.md in
// docs/results/records says what each column is).
var recordHeader = strings.Split("dataset,supervised,model,variant,seed,knn_micro_f1,knn_macro_f1,sup_micro_f1,sup_macro_f1,"+
	"link_auc,log_perplexity,log_perplexity_completion,valid_knn_micro_f1,valid_link_auc,npmi,diversity,level_share_min,"+
	"specialization_root,specialization_deepest,pcc,pcd,sd,pncd,recovery_nmi,topics,depth,train_seconds,docs_per_sec,"+
	"level_share,specialization", ",")

// writeFromExperiment writes a record CSV (header first) for the
// experiment folder dir (gtformer experiment --out): a row per run
// (runs/<dataset>/<variant>/seed<k>/metrics.json), per LDA fit
// (runs/<dataset>/lda/seed<k>.json) and per baseline
// (runs/<dataset>/baselines.json), by dataset, then gtformer, LDA and the
// baselines. A baseline's and LDA's link AUC is the cosine one, as the
// tables show.
func writeFromExperiment(w io.Writer, dir string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(recordHeader); err != nil {
		return err
	}
	datasets, err := filepath.Glob(filepath.Join(dir, "runs", "*"))
	if err != nil {
		return err
	}
	if len(datasets) == 0 {
		return fmt.Errorf("%s: no runs/<dataset> folders: not an experiment folder", dir)
	}
	slices.Sort(datasets)
	for _, ds := range datasets {
		rows, err := experimentRows(ds)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if err := cw.Write(r); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func experimentRows(ds string) ([][]string, error) {
	name := filepath.Base(ds)
	var rows [][]string
	runs, err := filepath.Glob(filepath.Join(ds, "*", "seed*", "metrics.json"))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(runs, func(a, b string) int { return strings.Compare(runKey(a), runKey(b)) })
	for _, p := range runs {
		var m outputs.Metrics
		if err := readJSON(p, &m); err != nil {
			return nil, err
		}
		variant := m.Variant
		if variant == "" {
			variant = filepath.Base(filepath.Dir(filepath.Dir(p)))
		}
		tp := m.Topics
		c := map[string]string{"dataset": name, "supervised": strconv.FormatBool(m.Supervised), "model": "gtformer",
			"variant": variant, "seed": strconv.FormatUint(m.Seed, 10),
			"knn_micro_f1": num(m.Test.KNNMicroF1, 1), "knn_macro_f1": num(m.Test.KNNMacroF1, 1),
			"sup_micro_f1": num(m.Test.SupMicroF1, 1), "sup_macro_f1": num(m.Test.SupMacroF1, 1),
			"link_auc": num(m.Test.LinkAUC, 1), "log_perplexity": num(m.Test.LogPerplexity, 1),
			"log_perplexity_completion": num(m.Test.LogPerplexityCompletion, 1),
			"npmi":                      num(&tp.NPMI, 100), "diversity": num(&tp.Diversity, 1),
			"pcc": num(tp.PCC, 100), "pcd": num(tp.PCD, 1), "sd": num(tp.SD, 1), "pncd": num(tp.PnCD, 1),
			"recovery_nmi": num(tp.RecoveryNMI, 1), "topics": strconv.Itoa(tp.Count), "depth": strconv.Itoa(tp.Depth),
			"train_seconds": num(&m.TrainSeconds, 1), "docs_per_sec": num(&m.DocsPerSec, 1),
			"level_share": list(tp.LevelShare, 1), "specialization": list(tp.Specialization, 1)}
		if m.Valid != nil {
			c["valid_knn_micro_f1"], c["valid_link_auc"] = num(m.Valid.KNNMicroF1, 1), num(m.Valid.LinkAUC, 1)
		}
		if len(tp.LevelShare) > 0 {
			v := slices.Min(tp.LevelShare)
			c["level_share_min"] = num(&v, 1)
		}
		if n := len(tp.Specialization); n > 0 {
			c["specialization_root"], c["specialization_deepest"] = num(&tp.Specialization[0], 1), num(&tp.Specialization[n-1], 1)
		}
		rows = append(rows, rowOf(recordHeader, c))
	}
	ldas, err := filepath.Glob(filepath.Join(ds, "lda", "seed*.json"))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(ldas, func(a, b string) int { return strings.Compare(runKey(a), runKey(b)) })
	for _, p := range ldas {
		var l struct {
			Seed                    uint64   `json:"seed"`
			Topics                  int      `json:"topics"`
			MicroF1                 *float64 `json:"micro_f1"`
			MacroF1                 *float64 `json:"macro_f1"`
			LinkAUC                 *float64 `json:"link_auc_cosine"`
			NPMI                    *float64 `json:"npmi"`
			Diversity               *float64 `json:"diversity"`
			LogPerplexity           *float64 `json:"log_perplexity"`
			LogPerplexityCompletion *float64 `json:"log_perplexity_completion"`
			Seconds                 *float64 `json:"seconds"`
		}
		if err := readJSON(p, &l); err != nil {
			return nil, err
		}
		rows = append(rows, rowOf(recordHeader, map[string]string{"dataset": name, "model": "lda", "variant": fmt.Sprintf("T=%d", l.Topics),
			"seed": strconv.FormatUint(l.Seed, 10), "knn_micro_f1": num(l.MicroF1, 1), "knn_macro_f1": num(l.MacroF1, 1),
			"link_auc": num(l.LinkAUC, 1), "log_perplexity": num(l.LogPerplexity, 1),
			"log_perplexity_completion": num(l.LogPerplexityCompletion, 1), "npmi": num(l.NPMI, 100),
			"diversity": num(l.Diversity, 1), "topics": strconv.Itoa(l.Topics), "depth": "1", "train_seconds": num(l.Seconds, 1)}))
	}
	var b struct {
		Baselines []struct {
			Method  string   `json:"method"`
			MicroF1 *float64 `json:"micro_f1"`
			MacroF1 *float64 `json:"macro_f1"`
			LinkAUC *float64 `json:"link_auc_cosine"`
			Seconds *float64 `json:"seconds"`
		} `json:"baselines"`
	}
	if err := readJSON(filepath.Join(ds, "baselines.json"), &b); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	for _, x := range b.Baselines {
		rows = append(rows, rowOf(recordHeader, map[string]string{"dataset": name, "model": "baseline", "variant": x.Method,
			"knn_micro_f1": num(x.MicroF1, 1), "knn_macro_f1": num(x.MacroF1, 1), "link_auc": num(x.LinkAUC, 1),
			"train_seconds": num(x.Seconds, 1)}))
	}
	return rows, nil
}

// runKey orders run paths by everything but the seed, then by the seed's
// number (seed10 after seed9).
func runKey(p string) string {
	base := filepath.Base(p)
	if base == "metrics.json" {
		base = filepath.Base(filepath.Dir(p))
		p = filepath.Dir(filepath.Dir(p))
	} else {
		p = filepath.Dir(p)
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(base, "seed"), ".json"))
	return fmt.Sprintf("%s/%06d", p, n)
}
