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
)

// validationHeader is validation.csv's header, in its order.
var validationHeader = strings.Split("run,dataset,seed,build,command,epochs,kept_epoch,train_seconds,"+
	"last_knn_micro_f1,last_knn_macro_f1,last_link_auc,last_log_perplexity,"+
	"kept_knn_micro_f1,kept_knn_macro_f1,kept_link_auc,kept_log_perplexity,"+
	"topics,depth,per_level,npmi,diversity,level_share,specialization,npmi_per_level,diversity_per_level,"+
	"pcc,pcd,sd,pncd", ",")

// validJSON is the part of a --valid-only run's valid.json a row holds.
type validJSON struct {
	Dataset      string   `json:"dataset"`
	Seed         uint64   `json:"seed"`
	TrainSeconds float64  `json:"train_seconds"`
	Epochs       int      `json:"epochs"`
	KeptEpoch    int      `json:"kept_epoch"`
	Valid        *figures `json:"valid"`
	Topics       struct {
		Count              int       `json:"count"`
		Depth              int       `json:"depth"`
		PerLevel           []int     `json:"per_level"`
		NPMI               float64   `json:"npmi"`
		Diversity          float64   `json:"diversity"`
		LevelShare         []float64 `json:"level_share"`
		Specialization     []float64 `json:"specialization"`
		NPMIPerLevel       []float64 `json:"npmi_per_level"`
		DiversityPerLevel  []float64 `json:"diversity_per_level"`
		PCC, PCD, SD, PnCD *float64
	} `json:"topics"`
	History []struct {
		Epoch int      `json:"epoch"`
		F1    *float64 `json:"valid_knn_micro_f1"`
		Macro *float64 `json:"valid_knn_macro_f1"`
		AUC   *float64 `json:"valid_link_auc"`
		Perp  *float64 `json:"valid_log_perplexity"`
	} `json:"history"`
}

// figures are valid.json's validation metrics of the kept state.
type figures struct {
	F1    *float64 `json:"knn_micro_f1"`
	Macro *float64 `json:"knn_macro_f1"`
	AUC   *float64 `json:"link_auc"`
	Perp  *float64 `json:"log_perplexity"`
}

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
	b, err := os.ReadFile(filepath.Join(dir, "valid.json"))
	if err != nil {
		return nil, err
	}
	var v validJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "valid.json"), err)
	}
	command := ""
	if c, err := os.ReadFile(filepath.Join(dir, "command.txt")); err == nil {
		command, _, _ = strings.Cut(strings.TrimSpace(string(c)), "\n")
	}
	num := func(x *float64, scale float64) string {
		if x == nil {
			return ""
		}
		return strconv.FormatFloat(*x*scale, 'g', -1, 64)
	}
	list := func(xs []float64, scale float64) string {
		s := make([]string, len(xs))
		for i, x := range xs {
			s[i] = strconv.FormatFloat(x*scale, 'g', -1, 64)
		}
		return strings.Join(s, "/")
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
	}
	per := make([]string, len(v.Topics.PerLevel))
	for i, n := range v.Topics.PerLevel {
		per[i] = strconv.Itoa(n)
	}
	cells["per_level"] = strings.Join(per, "/")
	if n := len(v.History); n > 0 {
		h := v.History[n-1]
		cells["last_knn_micro_f1"], cells["last_knn_macro_f1"] = num(h.F1, 1), num(h.Macro, 1)
		cells["last_link_auc"], cells["last_log_perplexity"] = num(h.AUC, 1), num(h.Perp, 1)
	}
	if k := v.Valid; k != nil {
		cells["kept_knn_micro_f1"], cells["kept_knn_macro_f1"] = num(k.F1, 1), num(k.Macro, 1)
		cells["kept_link_auc"], cells["kept_log_perplexity"] = num(k.AUC, 1), num(k.Perp, 1)
	}
	row := make([]string, len(validationHeader))
	for i, c := range validationHeader {
		row[i] = cells[c]
	}
	return row, nil
}
