package bench

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// threadClock returns the calling thread's CPU time (the caller locks its
// goroutine to the thread).
func threadClock() (clock, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return nil, fmt.Errorf("bench: reading the thread's CPU time: %w", err)
	}
	return func() time.Duration {
		var ts unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) // worked above
		return time.Duration(ts.Nano())
	}, nil
}
