package metrics

import (
	"fmt"
	"math"
	"slices"
)

// MicroF1 returns the micro-averaged F1 score in percent. For single-label
// classification it equals accuracy: every wrong prediction is one false
// positive and one false negative. It returns 0 for empty input.
func MicroF1(yTrue, yPred []int32) float64 {
	checkLen("MicroF1", yTrue, yPred)
	if len(yTrue) == 0 {
		return 0
	}
	correct := 0
	for i, t := range yTrue {
		if yPred[i] == t {
			correct++
		}
	}
	return 100 * float64(correct) / float64(len(yTrue))
}

// MicroF1SE returns the standard error, in percent, of a Micro-F1 of
// microF1 percent measured on a uniform sample of n single-label items:
// Micro-F1 is then the accuracy, a binomial proportion p, whose standard
// error is √(p(1−p)/n) (no finite-population correction, so it errs on the
// large side). NaN for n < 1.
func MicroF1SE(microF1 float64, n int) float64 {
	if n < 1 {
		return math.NaN()
	}
	p := microF1 / 100
	return 100 * math.Sqrt(p*(1-p)/float64(n))
}

// MacroF1 returns the unweighted mean of the per-label F1 scores in percent,
// over the labels present in yTrue ∪ yPred, as scikit-learn's
// f1_score(average='macro') does. Per label, F1 = 2TP / (2TP + FP + FN); a
// label that is never predicted has TP = 0 and scores 0, and so does a label
// that is predicted but never true. It returns 0 for empty input.
func MacroF1(yTrue, yPred []int32) float64 {
	checkLen("MacroF1", yTrue, yPred)
	type counts struct{ tp, fp, fn int }
	per := map[int32]*counts{}
	get := func(l int32) *counts {
		c := per[l]
		if c == nil {
			c = &counts{}
			per[l] = c
		}
		return c
	}
	for i, t := range yTrue {
		p := yPred[i]
		if p == t {
			get(t).tp++
		} else {
			get(t).fn++
			get(p).fp++
		}
	}
	if len(per) == 0 {
		return 0
	}
	// Sum in label order so the float result does not depend on map order.
	labels := make([]int32, 0, len(per))
	for l := range per {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	var sum float64
	for _, l := range labels {
		c := per[l]
		sum += 2 * float64(c.tp) / float64(2*c.tp+c.fp+c.fn)
	}
	return 100 * sum / float64(len(labels))
}

func checkLen(fn string, a, b []int32) {
	if len(a) != len(b) {
		panic(fmt.Sprintf("metrics: %s: %d true labels, %d predictions", fn, len(a), len(b)))
	}
}
