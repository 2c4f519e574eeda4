// Package progress draws a progress bar for long jobs (training epochs,
// corpus generation, downloads). On a terminal it redraws one line in place;
// when the output is a file or a pipe (CI logs, nohup) it prints a plain log
// line every few seconds instead, so logs stay readable.
//
// A Bar counts items or bytes towards an optional total and shows the rate,
// the estimated time left and free-form fields such as the parts of a loss:
//
//	train  [=========>          ]  48% 480/1000  95.2/s  ETA 5s  loss=3.412 graph=1.02
//
// A bar that is one unit of a longer run (SetRun: an epoch of training)
// also shows the whole run's time left, "run ETA 12m30s", after its own.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Default redraw intervals: a terminal tolerates frequent redraws, a log file
// wants few lines.
const (
	TerminalInterval = 100 * time.Millisecond
	LogInterval      = 10 * time.Second
)

const barWidth = 20

// Bar is a progress bar. Its methods are safe for concurrent use, and do
// nothing on a nil *Bar (so optional progress needs no checks).
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	total    int64
	bytes    bool
	tty      bool
	now      func() time.Time
	interval time.Duration

	start    time.Time
	lastDraw time.Time
	n        int64
	keys     []string
	vals     map[string]string
	lastLen  int // length of the last in-place line, to blank leftovers
	finished bool
	delay    time.Duration

	// run is set by SetRun: the bar's job is one unit of a longer run,
	// and the line also shows the whole run's time left.
	run     bool
	runLeft int           // units after this one
	perUnit time.Duration // expected wall time of one unit; 0: unknown
}

// Option configures a Bar.
type Option func(*Bar)

// Bytes formats counts as byte sizes (KiB, MiB, ...), for downloads.
func Bytes() Option { return func(b *Bar) { b.bytes = true } }

// Clock replaces time.Now, for deterministic tests.
func Clock(now func() time.Time) Option { return func(b *Bar) { b.now = now } }

// Terminal forces in-place redrawing on (true) or off (false) instead of
// detecting a terminal.
func Terminal(on bool) Option { return func(b *Bar) { b.tty = on; b.interval = defaultInterval(on) } }

// Delay keeps the bar silent until d has passed since it started, and
// Finish silent for a job that ended before then: a pass that is usually
// quick adds no lines, and the same pass on a large input still shows its
// progress.
func Delay(d time.Duration) Option { return func(b *Bar) { b.delay = d } }

// Interval sets the minimum time between two redraws or log lines.
func Interval(d time.Duration) Option { return func(b *Bar) { b.interval = d } }

func defaultInterval(tty bool) time.Duration {
	if tty {
		return TerminalInterval
	}
	return LogInterval
}

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// New starts a bar that writes to w. total <= 0 means unknown: the bar then
// shows the count and rate only.
func New(w io.Writer, label string, total int64, opts ...Option) *Bar {
	tty := IsTerminal(w)
	b := &Bar{w: w, label: label, total: total, tty: tty, now: time.Now,
		interval: defaultInterval(tty), vals: map[string]string{}}
	for _, o := range opts {
		o(b)
	}
	b.start = b.now()
	b.lastDraw = b.start
	return b
}

// Add advances the count by n and redraws if the interval has passed.
func (b *Bar) Add(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n += n
	b.maybeDraw()
}

// Set sets the count to n and redraws if the interval has passed.
func (b *Bar) Set(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n = n
	b.maybeDraw()
}

// SetTotal changes the total, e.g. when a download's size becomes known.
func (b *Bar) SetTotal(total int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total = total
}

// Write counts len(p) bytes, so a Bar can sit behind io.TeeReader or
// io.MultiWriter while a body is copied. It never fails.
func (b *Bar) Write(p []byte) (int, error) {
	b.Add(int64(len(p)))
	return len(p), nil
}

// SetRun says that the bar's job is one unit (an epoch) of a run with left
// more units after it, each expected to take perUnit (0 when none has been
// timed yet: the bar's own pace stands in), so that the line also shows
// the time left in the whole run (RunLeft).
func (b *Bar) SetRun(left int, perUnit time.Duration) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.run, b.runLeft, b.perUnit = true, left, perUnit
}

// RunLeft estimates the time left in a run whose unit under way is frac
// done (in [0,1]) after elapsed, with left more units after it, each
// taking perUnit: the wall time per unit measured on finished ones, the
// pauses between them included, or 0 when none has finished, in which
// case the unit under way's own pace stands in for the others. ok is
// false when nothing is known yet (no unit timed and no progress).
func RunLeft(frac float64, elapsed time.Duration, left int, perUnit time.Duration) (d time.Duration, ok bool) {
	frac = min(max(frac, 0), 1)
	var cur time.Duration // the unit under way's remaining time
	switch {
	case frac > 0:
		cur = time.Duration(float64(elapsed) * (1 - frac) / frac)
		if perUnit == 0 {
			perUnit = time.Duration(float64(elapsed) / frac)
		}
	case perUnit > 0:
		cur = max(perUnit-elapsed, 0)
	default:
		return 0, false
	}
	return cur + time.Duration(left)*perUnit, true
}

// SetField sets a free-form field shown after the rate, such as a loss part.
// Fields keep the order in which they were first set.
func (b *Bar) SetField(key, value string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.vals[key]; !ok {
		b.keys = append(b.keys, key)
	}
	b.vals[key] = value
}

// SetFloat sets a numeric field with 4 significant digits.
func (b *Bar) SetFloat(key string, v float64) {
	if b == nil {
		return
	}
	b.SetField(key, fmt.Sprintf("%.4g", v))
}

// Finish draws the final state and ends the line. Later calls do nothing.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	now := b.now()
	if now.Sub(b.start) < b.delay {
		return
	}
	b.draw(now)
	if b.tty {
		fmt.Fprintln(b.w)
	}
}

// String renders the current line (without any terminal control codes).
func (b *Bar) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.render(b.now())
}

func (b *Bar) maybeDraw() {
	if b.finished {
		return
	}
	now := b.now()
	if now.Sub(b.lastDraw) < b.interval || now.Sub(b.start) < b.delay {
		return
	}
	b.draw(now)
}

func (b *Bar) draw(now time.Time) {
	b.lastDraw = now
	line := b.render(now)
	if !b.tty {
		fmt.Fprintln(b.w, line)
		return
	}
	// Carriage return, then pad with spaces over a longer previous line
	// (plain spaces work on every terminal, unlike erase sequences on
	// some Windows consoles).
	pad := ""
	if n := b.lastLen - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	b.lastLen = len(line)
	fmt.Fprint(b.w, "\r"+line+pad)
}

// render formats one line at time now.
func (b *Bar) render(now time.Time) string {
	var s strings.Builder
	elapsed := now.Sub(b.start)
	if b.label != "" {
		s.WriteString(b.label)
		s.WriteString("  ")
	}
	if b.total > 0 {
		frac := float64(b.n) / float64(b.total)
		frac = min(max(frac, 0), 1)
		fill := int(frac * barWidth)
		s.WriteByte('[')
		s.WriteString(strings.Repeat("=", fill))
		if fill < barWidth {
			s.WriteByte('>')
			s.WriteString(strings.Repeat(" ", barWidth-fill-1))
		}
		fmt.Fprintf(&s, "] %3d%% %s/%s", int(frac*100), b.count(b.n), b.count(b.total))
	} else {
		s.WriteString(b.count(b.n))
	}
	rate := 0.0
	if elapsed > 0 {
		rate = float64(b.n) / elapsed.Seconds()
	}
	if b.bytes {
		fmt.Fprintf(&s, "  %s/s", formatBytes(int64(rate)))
	} else {
		fmt.Fprintf(&s, "  %.3g/s", rate)
	}
	switch {
	case b.finished || (b.total > 0 && b.n >= b.total):
		fmt.Fprintf(&s, "  in %s", formatDuration(elapsed))
	case b.total > 0 && rate > 0:
		eta := time.Duration(float64(b.total-b.n) / rate * float64(time.Second))
		fmt.Fprintf(&s, "  ETA %s", formatDuration(eta))
	default:
		fmt.Fprintf(&s, "  %s", formatDuration(elapsed))
	}
	if b.run && !b.finished && b.total > 0 {
		if d, ok := RunLeft(float64(b.n)/float64(b.total), elapsed, b.runLeft, b.perUnit); ok {
			fmt.Fprintf(&s, "  run ETA %s", formatDuration(d))
		}
	}
	for _, k := range b.keys {
		fmt.Fprintf(&s, "  %s=%s", k, b.vals[k])
	}
	return s.String()
}

func (b *Bar) count(n int64) string {
	if b.bytes {
		return formatBytes(n)
	}
	return fmt.Sprint(n)
}

// formatBytes renders n with a binary unit: 512 B, 1.5 KiB, 3.2 MiB.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// formatDuration renders d rounded to seconds: 45s, 3m07s, 2h05m.
func formatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}
