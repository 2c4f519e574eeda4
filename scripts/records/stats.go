package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// stat is a mean and sample standard deviation (denominator n − 1, as the
// paper's tables used) over n values; sd is NaN when n < 2.
type stat struct {
	mean, sd float64
	n        int
}

func summarize(xs []float64) stat {
	n := len(xs)
	if n == 0 {
		return stat{math.NaN(), math.NaN(), 0}
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(n)
	if n == 1 {
		return stat{mean, math.NaN(), 1}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return stat{mean, math.Sqrt(ss / float64(n-1)), n}
}

// format renders "mean ± sd (n)", or "mean (1)" for a single value.
func (s stat) format(digits int) string {
	if math.IsNaN(s.sd) {
		return fmt.Sprintf("%.*f (%d)", digits, s.mean, s.n)
	}
	return fmt.Sprintf("%.*f ± %.*f (%d)", digits, s.mean, digits, s.sd, s.n)
}

// paired is the differences a − b of one figure over the seeds both sides
// have it on, and how many of them have the sign of their mean.
type paired struct {
	diff  stat
	holds int
}

// pairBySeed pairs a and b (seed → value) by seed; ok is false when no seed
// pairs.
func pairBySeed(a, b map[int]float64) (paired, bool) {
	seeds := make([]int, 0, len(a))
	for seed := range a {
		seeds = append(seeds, seed)
	}
	slices.Sort(seeds) // a fixed order of summation: the same digits every time
	var diffs []float64
	for _, seed := range seeds {
		if y, ok := b[seed]; ok {
			diffs = append(diffs, a[seed]-y)
		}
	}
	if len(diffs) == 0 {
		return paired{}, false
	}
	p := paired{diff: summarize(diffs)}
	for _, d := range diffs {
		if d*p.diff.mean > 0 {
			p.holds++
		}
	}
	return p, true
}

// showT adds the t statistic to every paired cell (flag -ttest).
var showT bool

// format renders "+mean ± sd (n), holds/n" with a true minus sign, and
// with showT ", t = x" starred when significant (tStat).
func (p paired) format(digits int) string {
	s := signed(p.diff.mean, digits)
	if p.diff.n > 1 {
		s += fmt.Sprintf(" ± %.*f", digits, p.diff.sd)
	}
	s = fmt.Sprintf("%s (%d), %d/%d", s, p.diff.n, p.holds, p.diff.n)
	if showT {
		if t, sig, ok := p.tStat(); ok {
			s += ", t = " + signed(t, 2)
			if sig {
				s += "*"
			}
		}
	}
	return s
}

// tStat is the paired t statistic mean/(sd/√n) and whether it is beyond
// the two-sided 5% critical value of Student's t with n − 1 degrees of
// freedom; ok is false under two pairs. Differences all exactly zero give
// t = 0; equal non-zero differences (sd 0) give an infinite t.
func (p paired) tStat() (t float64, significant, ok bool) {
	d := p.diff
	if d.n < 2 {
		return 0, false, false
	}
	switch {
	case d.mean == 0:
		t = 0
	case d.sd == 0:
		t = math.Inf(int(math.Copysign(1, d.mean)))
	default:
		t = d.mean / (d.sd / math.Sqrt(float64(d.n)))
	}
	crit := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(d.n - 1)}.Quantile(0.975)
	return t, math.Abs(t) > crit, true
}

func signed(x float64, digits int) string {
	s := fmt.Sprintf("%+.*f", digits, x)
	if strings.HasPrefix(s, "-") {
		s = "−" + s[1:]
	}
	return s
}

// number parses a cell; ok is false for an empty or non-finite cell.
func number(cell string) (float64, bool, error) {
	if cell == "" {
		return 0, false, nil
	}
	x, err := strconv.ParseFloat(cell, 64)
	if err != nil {
		return 0, false, fmt.Errorf("cell %q: %w", cell, err)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false, nil
	}
	return x, true, nil
}

// levels parses a per-level cell, root first: "0.41/0.32/0.26".
func levels(cell string) ([]float64, error) {
	if cell == "" {
		return nil, nil
	}
	var out []float64
	for _, p := range strings.Split(cell, "/") {
		x, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, fmt.Errorf("level cell %q: %w", cell, err)
		}
		out = append(out, x)
	}
	return out, nil
}

// levelMeans averages per-level values level by level, root first; a level
// absent from some runs is averaged over those that have it.
func levelMeans(runs [][]float64) []float64 {
	var sum []float64
	var n []int
	for _, r := range runs {
		for l, x := range r {
			if l == len(sum) {
				sum, n = append(sum, 0), append(n, 0)
			}
			sum[l] += x
			n[l]++
		}
	}
	for l := range sum {
		sum[l] /= float64(n[l])
	}
	return sum
}

// formatLevels renders per-level means root first: "0.325 / 0.315 / 0.360".
func formatLevels(means []float64, digits int) string {
	if len(means) == 0 {
		return "–"
	}
	parts := make([]string, len(means))
	for i, x := range means {
		parts[i] = fmt.Sprintf("%.*f", digits, x)
	}
	return strings.Join(parts, " / ")
}
