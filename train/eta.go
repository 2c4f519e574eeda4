package train

import "time"

// runClock measures the wall time of this session's epochs, from the
// beginning of its first epoch to the beginning of the current one, so
// that the pauses between epochs (validation, checkpoints, tree growth)
// count: the progress line's estimate of the whole run's time left
// (progress.RunLeft) then covers every remaining epoch with its pauses.
// The phases after the last epoch (end-of-training fits, final embedding,
// evaluation) are not in it: their cost is not known before they run.
type runClock struct {
	first time.Time // when this session's first epoch began; zero: none yet
	began int       // epochs begun in this session before the current one
}

// epochBegins records the beginning of an epoch and returns the mean wall
// time of the epochs begun before it in this session (0 for the first:
// unknown). An epoch rolled back counts like any other: it took the time.
func (c *runClock) epochBegins() time.Duration {
	now := time.Now()
	if c.first.IsZero() {
		c.first = now
		return 0
	}
	c.began++
	return now.Sub(c.first) / time.Duration(c.began)
}
