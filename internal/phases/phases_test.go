package phases

import (
	"bytes"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRecord(t *testing.T) {
	tests := []struct {
		name  string
		adds  []string
		order []string
		secs  map[string]float64
	}{
		{"empty", nil, nil, nil},
		{"one", []string{"load"}, []string{"load"}, map[string]float64{"load": 1}},
		{"repeat accumulates, order of first run", []string{"steps", "validation", "steps"},
			[]string{"steps", "validation"}, map[string]float64{"steps": 2, "validation": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			for _, a := range tc.adds {
				r.Add(a, time.Second)
			}
			if got := strings.Join(r.Names(), ","); got != strings.Join(tc.order, ",") {
				t.Errorf("names %q, want %q", got, strings.Join(tc.order, ","))
			}
			got := r.Seconds()
			if len(got) != len(tc.secs) {
				t.Fatalf("seconds %v, want %v", got, tc.secs)
			}
			for k, v := range tc.secs {
				if got[k] != v {
					t.Errorf("%s: %g s, want %g", k, got[k], v)
				}
			}
		})
	}
}

func TestStartAndPrint(t *testing.T) {
	r := New()
	stop := r.Start("load")
	time.Sleep(2 * time.Millisecond)
	stop()
	if s := r.Seconds()["load"]; s < 0.002 {
		t.Errorf("load %g s, want at least 0.002", s)
	}
	var b strings.Builder
	r.Print(&b)
	if !strings.HasPrefix(b.String(), "phases (wall time):  load 0.0s") || !strings.Contains(b.String(), "total") {
		t.Errorf("printed %q", b.String())
	}
}

// A nil record ignores everything, so optional timing needs no checks.
func TestNilRecord(t *testing.T) {
	var r *Record
	r.Add("x", time.Second)
	r.Start("y")()
	r.AfterPhase(func(string) { t.Error("a nil record called back") })
	r.Start("z")()
	r.Print(nil)
	if r.Seconds() != nil || r.Names() != nil {
		t.Error("a nil record reported phases")
	}
}

// AfterPhase's function runs once per stop, with the phase's name, after
// the phase's time is recorded; nil removes it.
func TestAfterPhase(t *testing.T) {
	r := New()
	var got []string
	r.AfterPhase(func(name string) {
		if _, ok := r.Seconds()[name]; !ok {
			t.Errorf("%s: called before its time was recorded", name)
		}
		got = append(got, name)
	})
	r.Start("load")()
	r.Start("features")()
	r.Add("steps", time.Second) // not a stop: no call
	r.Start("load")()
	r.AfterPhase(nil)
	r.Start("evaluation")()
	if want := "load,features,load"; strings.Join(got, ",") != want {
		t.Errorf("called for %q, want %q", strings.Join(got, ","), want)
	}
}

// lockedBuffer is a bytes.Buffer safe for the announcements' timers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestAnnounce: a phase still under way after the delay is named once; a
// phase that ends first, a quiet one, and any after Announce(nil) are not.
func TestAnnounce(t *testing.T) {
	tests := []struct {
		name     string
		phase    string
		delay    time.Duration
		lasts    time.Duration
		off      bool
		wantLine bool
	}{
		{"long phase", "validation", time.Millisecond, 100 * time.Millisecond, false, true},
		{"ends before the delay", "validation", time.Hour, 0, false, false},
		{"quiet phase", "steps", time.Millisecond, 100 * time.Millisecond, false, false},
		{"announcements off", "validation", time.Millisecond, 100 * time.Millisecond, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out lockedBuffer
			r := New()
			r.Announce(&out, tc.delay, "steps")
			if tc.off {
				r.Announce(nil, 0)
			}
			stop := r.Start(tc.phase)
			time.Sleep(tc.lasts)
			stop()
			time.Sleep(20 * time.Millisecond) // a timer that fired late would write now
			want := ""
			if tc.wantLine {
				want = "phase " + tc.phase + " under way\n"
			}
			if got := out.String(); got != want {
				t.Errorf("announced %q, want %q", got, want)
			}
		})
	}
}

// TestPeakRSS: with tracking on, a phase that holds a large buffer records
// a peak at least that much above a phase that holds none; without it,
// nothing is recorded.
func TestPeakRSS(t *testing.T) {
	r := New()
	if r.PeakRSS() != nil {
		t.Fatal("peaks without TrackPeakRSS")
	}
	r.TrackPeakRSS()
	if runtime.GOOS != "linux" {
		if r.PeakRSS() != nil {
			t.Fatal("peaks recorded where the kernel has no VmHWM")
		}
		return
	}
	if r.PeakRSS() == nil {
		_, err := os.Stat("/proc/self/clear_refs")
		t.Fatalf("Linux without peak tracking (clear_refs: %v)", err)
	}
	stop := r.Start("small")
	stop()
	stop = r.Start("large")
	buf := make([]byte, 128<<20)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1 // touch every page so it is resident
	}
	stop()
	runtime.KeepAlive(buf)
	p := r.PeakRSS()
	if p["large"]-p["small"] < 100<<20 {
		t.Fatalf("peaks: small %.0f MB, large %.0f MB; want the large phase's 128 MB buffer to show", p["small"]/1e6, p["large"]/1e6)
	}
}
