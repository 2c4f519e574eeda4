package progress

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeClock is a settable clock for deterministic rendering.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newClock() *fakeClock { return &fakeClock{t: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)} }

func TestRender(t *testing.T) {
	tests := []struct {
		name    string
		total   int64
		opts    []Option
		n       int64
		elapsed time.Duration
		fields  [][2]string
		want    string
	}{
		{"start", 1000, nil, 0, 0, nil,
			"train  [>                   ]   0% 0/1000  0/s  0s"},
		{"half", 1000, nil, 500, 10 * time.Second, nil,
			"train  [==========>         ]  50% 500/1000  50/s  ETA 10s"},
		{"done", 1000, nil, 1000, 125 * time.Second, nil,
			"train  [====================] 100% 1000/1000  8/s  in 2m05s"},
		{"fields", 200, nil, 50, 5 * time.Second, [][2]string{{"loss", "3.41"}, {"graph", "1.02"}},
			"train  [=====>              ]  25% 50/200  10/s  ETA 15s  loss=3.41  graph=1.02"},
		{"unknown total", 0, nil, 300, time.Minute + 2*time.Second, nil,
			"train  300  4.84/s  1m02s"},
		{"bytes", 4 << 20, []Option{Bytes()}, 3 << 19, 2 * time.Second, nil,
			"train  [=======>            ]  37% 1.5 MiB/4.0 MiB  768.0 KiB/s  ETA 3s"},
		{"long ETA", 100000, nil, 10, 10 * time.Second, nil,
			"train  [>                   ]   0% 10/100000  1/s  ETA 27h46m"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			b := New(io.Discard, "train", tc.total, append([]Option{Clock(c.now)}, tc.opts...)...)
			c.advance(tc.elapsed)
			b.Set(tc.n)
			for _, f := range tc.fields {
				b.SetField(f[0], f[1])
			}
			if got := b.String(); got != tc.want {
				t.Errorf("\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestLogLines(t *testing.T) {
	// Not a terminal: one plain line per interval, none in between, and a
	// final line from Finish.
	var out bytes.Buffer
	c := newClock()
	b := New(&out, "gen", 100, Clock(c.now), Terminal(false), Interval(10*time.Second))
	for i := 0; i < 100; i++ {
		c.advance(time.Second)
		b.Add(1)
	}
	b.SetFloat("loss", 1.234567)
	b.Finish()
	b.Finish() // idempotent
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 11 {
		t.Fatalf("got %d lines, want 10 periodic + 1 final:\n%s", len(lines), out.String())
	}
	if strings.Contains(out.String(), "\r") {
		t.Error("log output contains a carriage return")
	}
	if want := "gen  [==>                 ]  10% 10/100  1/s  ETA 1m30s"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if want := "gen  [====================] 100% 100/100  1/s  in 1m40s  loss=1.235"; lines[10] != want {
		t.Errorf("last line %q, want %q", lines[10], want)
	}
}

func TestTerminalRedraw(t *testing.T) {
	var out bytes.Buffer
	c := newClock()
	b := New(&out, "", 0, Clock(c.now), Terminal(true))
	c.advance(time.Second)
	b.Add(100000) // "100000  1e+05/s  1s"
	c.advance(time.Second)
	b.Set(5) // shorter line: must be padded over the old one
	b.Finish()
	want := "\r100000  1e+05/s  1s" + "\r5  2.5/s  2s" + strings.Repeat(" ", 7) + "\r5  2.5/s  in 2s" + "\n"
	if out.String() != want {
		t.Errorf("\ngot  %q\nwant %q", out.String(), want)
	}
}

func TestWriteCountsBytes(t *testing.T) {
	c := newClock()
	b := New(io.Discard, "", 10, Clock(c.now), Bytes())
	n, err := io.Copy(b, strings.NewReader("0123456789"))
	if n != 10 || err != nil {
		t.Fatalf("copy: %d %v", n, err)
	}
	if !strings.Contains(b.String(), "10 B/10 B") {
		t.Errorf("render %q lacks the byte count", b.String())
	}
}

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"}, {5 << 30, "5.0 GiB"}} {
		if got := formatBytes(tc.n); got != tc.want {
			t.Errorf("formatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func ExampleBar() {
	// A fixed clock makes the output reproducible; real code omits Clock.
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	b := New(os.Stdout, "epoch 1", 3, Terminal(false), Clock(func() time.Time { return now }))
	for i := 0; i < 3; i++ {
		now = now.Add(time.Second)
		b.Add(1)
	}
	b.SetFloat("loss", 0.42)
	b.Finish()
	// Output: epoch 1  [====================] 100% 3/3  1/s  in 3s  loss=0.42
}

// TestDelay: a delayed bar says nothing for a job that ends before the
// delay, and reports a longer one as usual; a nil bar ignores every call.
func TestDelay(t *testing.T) {
	tests := []struct {
		name  string
		steps []time.Duration // time before each Add(1)
		lines int
	}{
		{"quick job silent", []time.Duration{time.Second, time.Second}, 0},
		{"long job reports", []time.Duration{time.Second, 12 * time.Second, 12 * time.Second}, 3}, // two log lines, then Finish
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			var buf bytes.Buffer
			b := New(&buf, "embed", 100, Clock(c.now), Terminal(false), Delay(3*time.Second))
			for _, d := range tc.steps {
				c.advance(d)
				b.Add(1)
			}
			b.Finish()
			if got := strings.Count(buf.String(), "\n"); got != tc.lines {
				t.Errorf("%d lines, want %d:\n%s", got, tc.lines, buf.String())
			}
		})
	}
	var nilBar *Bar
	nilBar.Add(1)
	nilBar.Set(2)
	nilBar.SetTotal(3)
	nilBar.SetFloat("x", 1)
	nilBar.Finish()
}

func TestRunLeft(t *testing.T) {
	tests := []struct {
		name    string
		frac    float64
		elapsed time.Duration
		left    int
		perUnit time.Duration
		want    time.Duration
		ok      bool
	}{
		{"nothing known", 0, 5 * time.Second, 3, 0, 0, false},
		{"first unit: its own pace for all", 0.25, 10 * time.Second, 3, 0, 30*time.Second + 3*40*time.Second, true},
		{"timed units, pauses included", 0.5, 10 * time.Second, 2, 50 * time.Second, 10*time.Second + 2*50*time.Second, true},
		{"timed units, unit just begun", 0, 5 * time.Second, 1, 50 * time.Second, 45*time.Second + 50*time.Second, true},
		{"unit begun longer ago than a unit takes", 0, 80 * time.Second, 1, 50 * time.Second, 50 * time.Second, true},
		{"last unit, done", 1, 10 * time.Second, 0, 12 * time.Second, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := RunLeft(tc.frac, tc.elapsed, tc.left, tc.perUnit)
			if got != tc.want || ok != tc.ok {
				t.Errorf("RunLeft(%g, %v, %d, %v) = %v, %v; want %v, %v", tc.frac, tc.elapsed, tc.left, tc.perUnit, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestRenderRun: a bar that is one epoch of a run shows the run's time
// left after its own ETA, and nothing of it once finished.
func TestRenderRun(t *testing.T) {
	tests := []struct {
		name     string
		n        int64
		elapsed  time.Duration
		left     int
		perUnit  time.Duration
		finished bool
		want     string
	}{
		{"first epoch, own pace", 50, 10 * time.Second, 4, 0, false,
			"epoch 1/5  [==========>         ]  50% 50/100  5/s  ETA 10s  run ETA 1m30s  loss=2"},
		{"later epoch, measured epochs", 25, 10 * time.Second, 2, time.Minute, false,
			"epoch 3/5  [=====>              ]  25% 25/100  2.5/s  ETA 30s  run ETA 2m30s  loss=2"},
		{"no progress yet, nothing timed", 0, 2 * time.Second, 4, 0, false,
			"epoch 1/5  [>                   ]   0% 0/100  0/s  2s  loss=2"},
		{"finished", 100, 20 * time.Second, 2, time.Minute, true,
			"epoch 3/5  [====================] 100% 100/100  5/s  in 20s  loss=2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			label := "epoch 1/5"
			if tc.perUnit > 0 {
				label = "epoch 3/5"
			}
			b := New(io.Discard, label, 100, Clock(c.now))
			b.SetRun(tc.left, tc.perUnit)
			c.advance(tc.elapsed)
			b.Set(tc.n)
			b.SetField("loss", "2")
			if tc.finished {
				b.Finish()
			}
			if got := b.String(); got != tc.want {
				t.Errorf("\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
}
