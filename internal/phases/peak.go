package phases

import (
	"bufio"
	"bytes"
	"maps"
	"os"
	"strconv"
)

// TrackPeakRSS makes r record, for every phase, the highest resident set
// size the process reached while it ran (Linux: the kernel's VmHWM, reset
// at each phase's start through /proc/self/clear_refs), for
// docs/benchmarks.md's memory by phase. The reset sets the mark to the
// resident set at the phase's start, so a phase's figure is what it held
// on top of what was resident then (the Go heap keeps freed memory a
// while), not the run's peak so far. Where the kernel offers neither,
// nothing is recorded. Phases that nest share the reset: the outer one
// records what followed the inner one's end.
func (r *Record) TrackPeakRSS() {
	if r == nil || peakRSS() < 0 || !resetPeakRSS() {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.peaks = map[string]float64{}
}

// PeakRSS returns each tracked phase's peak resident set size in bytes
// (nil unless TrackPeakRSS took effect).
func (r *Record) PeakRSS() map[string]float64 {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.peaks == nil {
		return nil
	}
	return maps.Clone(r.peaks)
}

// notePeak records the peak since the last reset for phase name, then
// resets it for the next phase.
func (r *Record) notePeak(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.peaks == nil {
		return
	}
	if p := peakRSS(); p >= 0 {
		r.peaks[name] = max(r.peaks[name], p)
	}
	resetPeakRSS()
}

// peakRSS reads VmHWM from /proc/self/status in bytes; -1 if unavailable.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "VmHWM:" {
			kb, err := strconv.ParseFloat(string(f[1]), 64)
			if err != nil {
				return -1
			}
			return kb * 1024
		}
	}
	return -1
}

// resetPeakRSS sets VmHWM back to the current resident set (writing 5 to
// clear_refs, Linux 4.0 on); false if the kernel refused.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}
