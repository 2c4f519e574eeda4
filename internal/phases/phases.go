// Package phases records the wall time of a run's phases (load, features,
// topic start, steps, validation, evaluation, ...), in the order they first
// ran, so that a run can print where its time went and write it into
// metrics.json (the scale table of docs/benchmarks.md is made from those).
package phases

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Record accumulates seconds per phase name. A nil *Record ignores every
// call, so code can time phases without checking whether anyone listens.
// Its methods are safe for concurrent use.
type Record struct {
	mu    sync.Mutex
	names []string
	secs  map[string]float64
	after func(name string)
	// peaks, when TrackPeakRSS took effect, holds each phase's peak
	// resident set size in bytes; nil: not tracked.
	peaks map[string]float64
	// announce, when set (Announce), names on its writer each phase still
	// under way after its delay.
	announce *announcer
}

// announcer is Announce's setting.
type announcer struct {
	w     io.Writer
	delay time.Duration
	quiet map[string]bool
	mu    sync.Mutex // serialises the lines of concurrent phases
}

// New returns an empty record.
func New() *Record { return &Record{secs: map[string]float64{}} }

// Add adds d to the phase's time.
func (r *Record) Add(name string, d time.Duration) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.secs[name]; !ok {
		r.names = append(r.names, name)
	}
	r.secs[name] += d.Seconds()
}

// Start starts timing a phase; calling the returned function stops it and
// adds the time. Use as: defer r.Start("validation")().
func (r *Record) Start(name string) func() {
	if r == nil {
		return func() {}
	}
	began := time.Now()
	r.mu.Lock()
	a := r.announce
	if r.peaks != nil {
		resetPeakRSS()
	}
	r.mu.Unlock()
	var timer *time.Timer
	if a != nil && !a.quiet[name] {
		timer = time.AfterFunc(a.delay, func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			fmt.Fprintf(a.w, "phase %s under way\n", name)
		})
	}
	return func() {
		if timer != nil {
			timer.Stop()
		}
		r.Add(name, time.Since(began))
		r.notePeak(name)
		r.mu.Lock()
		after := r.after
		r.mu.Unlock()
		if after != nil {
			after(name)
		}
	}
}

// AfterPhase has f called with the phase's name each time a phase begun
// with Start stops (after its time is added), on the goroutine that stops
// it: for what belongs at a phase's end, such as the heap profile of
// gtformer train --memprofile. A nil f removes the call.
func (r *Record) AfterPhase(f func(name string)) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.after = f
}

// Announce has every phase begun with Start afterwards that is still under
// way after delay named on w, once, as "phase validation under way":
// without it a long run's phases that draw no progress bar (features,
// topic start, validation, the final embedding, evaluation) leave the log
// silent for minutes. Phases named in quiet are not announced (those that
// draw a bar of their own, such as the training steps). A nil w stops the
// announcements.
func (r *Record) Announce(w io.Writer, delay time.Duration, quiet ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if w == nil {
		r.announce = nil
		return
	}
	a := &announcer{w: w, delay: delay, quiet: map[string]bool{}}
	for _, q := range quiet {
		a.quiet[q] = true
	}
	r.announce = a
}

// Seconds returns a copy of the phases' seconds (nil for a nil or empty
// record).
func (r *Record) Seconds() map[string]float64 {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.names) == 0 {
		return nil
	}
	out := make(map[string]float64, len(r.secs))
	for k, v := range r.secs {
		out[k] = v
	}
	return out
}

// Names returns the phase names in the order they first ran.
func (r *Record) Names() []string {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.names...)
}

// Print writes one line: every phase with its seconds, in order, and the
// total.
func (r *Record) Print(w io.Writer) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	var total float64
	for _, n := range r.names {
		fmt.Fprintf(&b, "  %s %.1fs", n, r.secs[n])
		total += r.secs[n]
	}
	fmt.Fprintf(w, "phases (wall time):%s  (total %.1fs)\n", b.String(), total)
}
