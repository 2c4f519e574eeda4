package topicmap

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/gtformer/gtformer/corpus"
)

// Binnings a facet may ask for (FacetOptions.Bin).
const (
	BinAuto     = ""         // by the field: see Bins
	BinYear     = "year"     // dates by year; integer numbers one bin per integer
	BinMonth    = "month"    // dates by month (every value must have one)
	BinQuantile = "quantile" // numbers and dates into FacetOptions.Quantiles bins of equal counts
	BinValue    = "value"    // strings by value, the long tail as one "(other)" bin
)

// Defaults of FacetOptions.
const (
	DefaultTop       = 12 // string values shown before "(other)"
	DefaultQuantiles = 10
	// maxBins bounds year and month bins, which fill the gaps between the
	// first and the last value.
	maxBins = 1200
)

// OtherLabel names the bin of the string values beyond the top ones.
const OtherLabel = "(other)"

// FacetOptions choose a facet's bins. The zero value picks them by the
// field (Bins).
type FacetOptions struct {
	Bin       string // BinAuto, BinYear, BinMonth, BinQuantile or BinValue
	Top       int    // string values with their own bin (0: DefaultTop); the rest go to OtherLabel
	Quantiles int    // bins of BinQuantile (0: DefaultQuantiles)
}

// Bin is one bin of a facet.
type Bin struct {
	Label string `json:"label"`
	// Lo and Hi bound a numeric bin's values (as numbers; for dates the
	// year with its fraction); both 0 for a string value.
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Docs counts the bin's documents and Words their words (set by
	// Facets; 0 in a Binning).
	Docs  int     `json:"docs"`
	Words float64 `json:"words"`
}

// Binning assigns each document of a field to a bin.
type Binning struct {
	Field string           `json:"field"`
	Kind  corpus.FieldKind `json:"kind"`
	Bin   string           `json:"bin"` // the binning used (never BinAuto; "integer" for BinYear on numbers)
	Bins  []Bin            `json:"bins"`
	// Of holds each document's bin, -1 for a document without the field.
	Of []int32 `json:"-"`
}

// Bins bins a field's documents. BinAuto picks: strings by value; dates by
// year, or by month when every value has a month and they span under
// three years; numbers that are all integers spanning at most 100 one bin
// per integer, other numbers by quantile.
func Bins(f corpus.Field, opt FacetOptions) (*Binning, error) {
	if opt.Top <= 0 {
		opt.Top = DefaultTop
	}
	if opt.Quantiles <= 0 {
		opt.Quantiles = DefaultQuantiles
	}
	b := &Binning{Field: f.Name, Kind: f.Kind, Of: make([]int32, len(f.Values))}
	for i := range b.Of {
		b.Of[i] = -1
	}
	mode := opt.Bin
	switch f.Kind {
	case corpus.KindString:
		if mode != BinAuto && mode != BinValue {
			return nil, fmt.Errorf("%w: field %q holds strings: bin by value, not %q", ErrBadRequest, f.Name, mode)
		}
		b.Bin = BinValue
		byValue(b, f, opt.Top)
		return b, nil
	case corpus.KindDate:
		return b, binDates(b, f, mode, opt.Quantiles)
	case corpus.KindNumber:
		return b, binNumbers(b, f, mode, opt.Quantiles)
	}
	return nil, fmt.Errorf("%w: field %q of unknown kind", ErrBadRequest, f.Name)
}

// byValue gives the top string values a bin each, most documents first
// (ties by value), and the rest one OtherLabel bin.
func byValue(b *Binning, f corpus.Field, top int) {
	count := map[string]int{}
	for _, v := range f.Values {
		if v != "" {
			count[v]++
		}
	}
	values := make([]string, 0, len(count))
	for v := range count {
		values = append(values, v)
	}
	slices.SortFunc(values, func(x, y string) int {
		if c := cmp.Compare(count[y], count[x]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	// An "(other)" bin of one value would only hide that value's name.
	if len(values) == top+1 {
		top++
	}
	bin := map[string]int32{}
	for k, v := range values {
		if k < top {
			bin[v] = int32(k)
			b.Bins = append(b.Bins, Bin{Label: v})
		} else {
			bin[v] = int32(top)
		}
	}
	if len(values) > top {
		b.Bins = append(b.Bins, Bin{Label: OtherLabel})
	}
	for i, v := range f.Values {
		if v != "" {
			b.Of[i] = bin[v]
		}
	}
}

// binDates bins date strings by year, month or quantile.
func binDates(b *Binning, f corpus.Field, mode string, q int) error {
	type date struct{ y, m, d int }
	ds := make([]date, len(f.Values))
	allMonths := true
	lo, hi := math.MaxInt, math.MinInt
	for i, v := range f.Values {
		if v == "" {
			continue
		}
		y, m, d, ok := corpus.ParseDate(v)
		if !ok {
			return fmt.Errorf("%w: field %q: %q is not a date", ErrBadRequest, f.Name, v)
		}
		ds[i] = date{y, m, d}
		allMonths = allMonths && m > 0
		lo, hi = min(lo, y), max(hi, y)
	}
	if lo > hi { // no document has the field
		b.Bin = cmp.Or(mode, BinYear)
		return nil
	}
	if mode == BinAuto {
		mode = BinYear
		if allMonths && hi-lo < 3 {
			mode = BinMonth
		}
	}
	b.Bin = mode
	switch mode {
	case BinYear:
		if hi-lo+1 > maxBins {
			return fmt.Errorf("%w: field %q spans %d years: bin by quantile", ErrBadRequest, f.Name, hi-lo+1)
		}
		for y := lo; y <= hi; y++ {
			b.Bins = append(b.Bins, Bin{Label: strconv.Itoa(y), Lo: float64(y), Hi: float64(y + 1)})
		}
		for i, v := range f.Values {
			if v != "" {
				b.Of[i] = int32(ds[i].y - lo)
			}
		}
	case BinMonth:
		if !allMonths {
			return fmt.Errorf("%w: field %q has dates without a month: bin by year", ErrBadRequest, f.Name)
		}
		first, last := math.MaxInt, math.MinInt
		for i, v := range f.Values {
			if v != "" {
				m := ds[i].y*12 + ds[i].m - 1
				first, last = min(first, m), max(last, m)
			}
		}
		if last-first+1 > maxBins {
			return fmt.Errorf("%w: field %q spans %d months: bin by year", ErrBadRequest, f.Name, last-first+1)
		}
		for m := first; m <= last; m++ {
			b.Bins = append(b.Bins, Bin{Label: fmt.Sprintf("%04d-%02d", m/12, m%12+1), Lo: float64(m) / 12, Hi: float64(m+1) / 12})
		}
		for i, v := range f.Values {
			if v != "" {
				b.Of[i] = int32(ds[i].y*12 + ds[i].m - 1 - first)
			}
		}
	case BinQuantile:
		x := make([]float64, len(f.Values))
		for i, v := range f.Values {
			if v == "" {
				x[i] = math.NaN()
				continue
			}
			d := ds[i]
			x[i] = float64(d.y)
			if d.m > 0 {
				x[i] += float64(d.m-1) / 12
			}
			if d.d > 0 {
				x[i] += float64(d.d-1) / 372
			}
		}
		quantiles(b, x, q)
	default:
		return fmt.Errorf("%w: field %q holds dates: bin by year, month or quantile, not %q", ErrBadRequest, f.Name, mode)
	}
	return nil
}

// binNumbers bins numbers one per integer (BinYear) or by quantile.
func binNumbers(b *Binning, f corpus.Field, mode string, q int) error {
	x := make([]float64, len(f.Values))
	integers := true
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range f.Values {
		v, ok := f.Number(i)
		if !ok {
			x[i] = math.NaN()
			continue
		}
		x[i] = v
		integers = integers && v == math.Trunc(v)
		lo, hi = min(lo, v), max(hi, v)
	}
	if mode == BinAuto {
		mode = BinQuantile
		if integers && hi-lo < 100 {
			mode = BinYear
		}
	}
	switch mode {
	case BinYear:
		b.Bin = "integer"
		if lo > hi {
			return nil
		}
		if !integers {
			return fmt.Errorf("%w: field %q holds numbers that are not integers: bin by quantile", ErrBadRequest, f.Name)
		}
		if hi-lo+1 > maxBins {
			return fmt.Errorf("%w: field %q spans %g integers: bin by quantile", ErrBadRequest, f.Name, hi-lo+1)
		}
		for v := lo; v <= hi; v++ {
			b.Bins = append(b.Bins, Bin{Label: strconv.FormatFloat(v, 'f', -1, 64), Lo: v, Hi: v + 1})
		}
		for i, v := range x {
			if !math.IsNaN(v) {
				b.Of[i] = int32(v - lo)
			}
		}
	case BinQuantile:
		b.Bin = BinQuantile
		quantiles(b, x, q)
	default:
		return fmt.Errorf("%w: field %q holds numbers: bin by year (one bin per integer) or quantile, not %q", ErrBadRequest, f.Name, mode)
	}
	return nil
}

// quantiles splits the values of x that are not NaN into at most q bins of
// near-equal counts; equal values share a bin, so there may be fewer.
func quantiles(b *Binning, x []float64, q int) {
	var sorted []float64
	for _, v := range x {
		if !math.IsNaN(v) {
			sorted = append(sorted, v)
		}
	}
	if len(sorted) == 0 {
		return
	}
	slices.Sort(sorted)
	// Cut k sits at the value of rank k·n/q: a value belongs to the bin of
	// the number of cuts at or below it.
	var cuts []float64
	for k := 1; k < q; k++ {
		c := sorted[k*len(sorted)/q]
		if c > sorted[0] && (len(cuts) == 0 || c > cuts[len(cuts)-1]) {
			cuts = append(cuts, c)
		}
	}
	nb := len(cuts) + 1
	b.Bins = make([]Bin, nb)
	for k := range b.Bins {
		b.Bins[k] = Bin{Lo: math.Inf(1), Hi: math.Inf(-1)}
	}
	for i, v := range x {
		if math.IsNaN(v) {
			continue
		}
		k, _ := slices.BinarySearch(cuts, v)
		if k < len(cuts) && cuts[k] == v {
			k++
		}
		b.Of[i] = int32(k)
		b.Bins[k].Lo, b.Bins[k].Hi = min(b.Bins[k].Lo, v), max(b.Bins[k].Hi, v)
	}
	for k := range b.Bins {
		lo, hi := b.Bins[k].Lo, b.Bins[k].Hi
		b.Bins[k].Label = fmtNum(lo) + "–" + fmtNum(hi)
		if lo == hi {
			b.Bins[k].Label = fmtNum(lo)
		}
	}
}

// fmtNum writes a bin bound with at most 6 significant digits.
func fmtNum(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
