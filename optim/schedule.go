package optim

import (
	"fmt"
	"math"
)

// Decay is the shape of a Schedule after warm-up.
type Decay int

const (
	Constant Decay = iota // stay at Peak
	Linear                // straight line from Peak to Floor
	Cosine                // half cosine from Peak to Floor
)

func (d Decay) String() string {
	switch d {
	case Constant:
		return "constant"
	case Linear:
		return "linear"
	case Cosine:
		return "cosine"
	}
	return fmt.Sprintf("Decay(%d)", int(d))
}

// Schedule is a learning rate as a pure function of the step: a linear
// warm-up to Peak over the first Warmup steps, then Decay from Peak at step
// Warmup to Floor at step Total, then Floor.
type Schedule struct {
	Peak, Floor   float64
	Warmup, Total int64
	Decay         Decay
}

// At is the learning rate for the update that follows step completed
// updates (pass Adam.StepCount()):
//
//	step < Warmup:          Peak·(step+1)/Warmup   (reaches Peak at Warmup−1)
//	Warmup ≤ step < Total:  Floor + (Peak−Floor)·f(q),  q = (step−Warmup)/(Total−Warmup)
//	                        f = 1−q (Linear), (1+cos πq)/2 (Cosine), 1 (Constant)
//	step ≥ Total:           Floor (Peak for Constant)
func (s Schedule) At(step int64) float64 {
	if step < 0 {
		step = 0
	}
	if step < s.Warmup {
		return s.Peak * float64(step+1) / float64(s.Warmup)
	}
	if s.Decay == Constant {
		return s.Peak
	}
	if step >= s.Total {
		return s.Floor
	}
	q := float64(step-s.Warmup) / float64(s.Total-s.Warmup)
	f := 1 - q
	if s.Decay == Cosine {
		f = 0.5 * (1 + math.Cos(math.Pi*q))
	}
	return s.Floor + (s.Peak-s.Floor)*f
}

// Validate reports settings that make no sense: a non-positive or
// non-finite Peak, Floor outside [0, Peak], negative Warmup, Total before
// the end of warm-up, an unknown Decay.
func (s Schedule) Validate() error {
	switch {
	case math.IsNaN(s.Peak) || math.IsInf(s.Peak, 0) || s.Peak <= 0:
		return fmt.Errorf("optim: schedule peak %v, want a positive number", s.Peak)
	case s.Decay != Constant && (math.IsNaN(s.Floor) || s.Floor < 0 || s.Floor > s.Peak):
		return fmt.Errorf("optim: schedule floor %v outside [0, peak %v]", s.Floor, s.Peak)
	case s.Warmup < 0:
		return fmt.Errorf("optim: schedule warm-up %d steps, want >= 0", s.Warmup)
	case s.Decay != Constant && s.Total < s.Warmup:
		return fmt.Errorf("optim: schedule total %d steps ends before warm-up (%d steps)", s.Total, s.Warmup)
	case s.Decay < Constant || s.Decay > Cosine:
		return fmt.Errorf("optim: schedule decay %v unknown", s.Decay)
	}
	return nil
}

// ParseDecay reads "constant", "linear" or "cosine" (for command-line flags).
func ParseDecay(s string) (Decay, error) {
	for _, d := range []Decay{Constant, Linear, Cosine} {
		if s == d.String() {
			return d, nil
		}
	}
	return Constant, fmt.Errorf("optim: unknown decay %q (want constant, linear or cosine)", s)
}
