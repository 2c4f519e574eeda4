// Package faultpoint names the moments of the program's writes at which a
// test may stop it (kill -9), interrupt it (SIGINT, SIGTERM) or fill its
// disk, so that crash safety is tested at every write rather than at a few
// chosen moments (docs/reliability.md lists the points and the faults
// tried). Outside tests no hook is set and Reached costs one atomic load.
//
// Points are named "<what> <path>": "commit PATH" when a file's content is
// complete in memory and about to be flushed, synced and renamed into place
// (internal/atomicfile), "committed PATH" once it is in place, and the
// checkpoint's own steps (package train).
package faultpoint

import "sync/atomic"

// Hook sees every point reached, in order, on the goroutine that reaches
// it. It may block (to wait for a signal to be handled), write files (to
// fill the disk) or end the process.
type Hook func(point string)

var hook atomic.Pointer[Hook]

// Set installs h (nil removes the hook) and returns a function that puts
// the previous hook back. Tests only.
func Set(h Hook) (restore func()) {
	var p *Hook
	if h != nil {
		p = &h
	}
	old := hook.Swap(p)
	return func() { hook.Store(old) }
}

// Reached reports point to the hook, if any.
func Reached(point string) {
	if h := hook.Load(); h != nil {
		(*h)(point)
	}
}
