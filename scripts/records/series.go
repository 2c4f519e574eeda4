package main

import (
	"fmt"
	"slices"
	"strconv"
)

// column is a figure of the tables: its CSV column, its label and the
// decimals it is printed with.
type column struct {
	key, label string
	digits     int
}

// series is one row of a table: a variant (or LDA, a baseline, a group of
// validation runs) over its seeds.
type series struct {
	name string
	// values maps a column to its value per seed (seed 0 for a row without
	// a seed: a baseline is deterministic).
	values map[string]map[int]float64
	// levels maps a per-level column to its runs' values, root first.
	levels map[string][][]float64
	seeds  []int
}

func newSeries(name string) *series {
	return &series{name: name, values: map[string]map[int]float64{}, levels: map[string][][]float64{}}
}

// add reads one CSV row into s: the given number columns and per-level
// columns.
func (s *series) add(row map[string]string, cols []column, levelCols []string) error {
	seed := 0
	if c := row["seed"]; c != "" {
		var err error
		if seed, err = strconv.Atoi(c); err != nil {
			return fmt.Errorf("seed %q: %w", c, err)
		}
	}
	if slices.Contains(s.seeds, seed) {
		return fmt.Errorf("%s: seed %d twice", s.name, seed)
	}
	s.seeds = append(s.seeds, seed)
	for _, c := range cols {
		x, ok, err := number(row[c.key])
		if err != nil {
			return fmt.Errorf("%s: %s: %w", s.name, c.key, err)
		}
		if !ok {
			continue
		}
		if s.values[c.key] == nil {
			s.values[c.key] = map[int]float64{}
		}
		s.values[c.key][seed] = x
	}
	for _, k := range levelCols {
		ls, err := levels(row[k])
		if err != nil {
			return fmt.Errorf("%s: %s: %w", s.name, k, err)
		}
		if ls != nil {
			s.levels[k] = append(s.levels[k], ls)
		}
	}
	return nil
}

// stat summarises a column over the seeds that have it; ok is false when
// none has.
func (s *series) stat(key string) (stat, bool) {
	bySeed := s.values[key]
	if len(bySeed) == 0 {
		return stat{}, false
	}
	var xs []float64
	for _, seed := range s.seeds { // CSV order: the same digits every time
		if x, ok := bySeed[seed]; ok {
			xs = append(xs, x)
		}
	}
	return summarize(xs), true
}

// present keeps the columns at least one of the series has.
func present(cols []column, rows []*series) []column {
	var out []column
	for _, c := range cols {
		if slices.ContainsFunc(rows, func(s *series) bool { return len(s.values[c.key]) > 0 }) {
			out = append(out, c)
		}
	}
	return out
}
