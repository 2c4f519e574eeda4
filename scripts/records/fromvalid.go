package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/pipeline"
)

// validationHeader is validation.csv's header, in its order.
var validationHeader = strings.Split("run,dataset,seed,build,command,epochs,kept_epoch,train_seconds,"+
	"last_knn_micro_f1,last_knn_macro_f1,last_link_auc,last_log_perplexity,"+
	"kept_knn_micro_f1,kept_knn_macro_f1,kept_link_auc,kept_log_perplexity,"+
	"topics,depth,per_level,npmi,diversity,level_share,specialization,npmi_per_level,diversity_per_level,"+
	"pcc,pcd,sd,pncd,kept_log_perplexity_completion,recovery_nmi", ",")

// writeFromValid writes validation.csv rows (header first) for the
// --valid-only run folders dirs: the run's name is the folder's name, its
// command the first line of command.txt in it (empty without one), build
// the binary's name given.
func writeFromValid(w io.Writer, build string, dirs []string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(validationHeader); err != nil {
		return err
	}
	for _, dir := range dirs {
		row, err := validRow(dir, build)
		if err != nil {
			return err
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func validRow(dir, build string) ([]string, error) {
	var v pipeline.ValidReport
	if err := readJSON(filepath.Join(dir, "valid.json"), &v); err != nil {
		return nil, err
	}
	command := ""
	if c, err := os.ReadFile(filepath.Join(dir, "command.txt")); err == nil {
		command, _, _ = strings.Cut(strings.TrimSpace(string(c)), "\n")
	}
	cells := map[string]string{
		"run": filepath.Base(filepath.Clean(dir)), "dataset": v.Dataset, "seed": strconv.FormatUint(v.Seed, 10),
		"build": build, "command": command, "epochs": strconv.Itoa(v.Epochs), "kept_epoch": strconv.Itoa(v.KeptEpoch),
		"train_seconds": strconv.FormatFloat(v.TrainSeconds, 'g', -1, 64),
		"topics":        strconv.Itoa(v.Topics.Count), "depth": strconv.Itoa(v.Topics.Depth),
		"npmi": num(&v.Topics.NPMI, 100), "diversity": num(&v.Topics.Diversity, 1),
		"level_share": list(v.Topics.LevelShare, 1), "specialization": list(v.Topics.Specialization, 1),
		"npmi_per_level": list(v.Topics.NPMIPerLevel, 100), "diversity_per_level": list(v.Topics.DiversityPerLevel, 1),
		"pcc": num(v.Topics.PCC, 100), "pcd": num(v.Topics.PCD, 1), "sd": num(v.Topics.SD, 1), "pncd": num(v.Topics.PnCD, 1),
		"recovery_nmi": num(v.Topics.RecoveryNMI, 1),
	}
	per := make([]string, len(v.Topics.PerLevel))
	for i, n := range v.Topics.PerLevel {
		per[i] = strconv.Itoa(n)
	}
	cells["per_level"] = strings.Join(per, "/")
	if n := len(v.History); n > 0 {
		h := v.History[n-1]
		cells["last_knn_micro_f1"], cells["last_knn_macro_f1"] = num(h.ValidF1, 1), num(h.ValidMacroF1, 1)
		cells["last_link_auc"], cells["last_log_perplexity"] = num(h.ValidAUC, 1), num(h.ValidLogPerp, 1)
	}
	if k := v.Valid; k != nil {
		cells["kept_knn_micro_f1"], cells["kept_knn_macro_f1"] = num(k.KNNMicroF1, 1), num(k.KNNMacroF1, 1)
		cells["kept_link_auc"], cells["kept_log_perplexity"] = num(k.LinkAUC, 1), num(k.LogPerplexity, 1)
		cells["kept_log_perplexity_completion"] = num(k.LogPerplexityCompletion, 1)
	}
	return rowOf(validationHeader, cells), nil
}

// num formats a figure for a CSV cell, scaled (100: a fraction as
// percent); "" for an absent one.
func num(x *float64, scale float64) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(*x*scale, 'g', -1, 64)
}

// list formats per-level figures, scaled, separated by "/".
func list(xs []float64, scale float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x*scale, 'g', -1, 64)
	}
	return strings.Join(s, "/")
}

// rowOf lays cells out in header's order ("" for a column not given).
func rowOf(header []string, cells map[string]string) []string {
	row := make([]string, len(header))
	for i, c := range header {
		row[i] = cells[c]
	}
	return row
}

// readJSON decodes the JSON file path into v; a decoding error names it.
func readJSON(path string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
