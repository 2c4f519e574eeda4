package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"

	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/internal/phases"
)

// memProfile writes gtformer train's --memprofile: a Go heap profile
// (pprof) taken when the phase named by --memprofile-phase first ends.
// Its inuse_space view is what the run holds at that moment (after a
// garbage collection, so the figures are current), its alloc_space view
// every allocation since the start by call site: a phase whose transient
// buffers raise the peak shows there even though they are freed by its
// end.
type memProfile struct {
	path, phase string

	mu      sync.Mutex
	written bool
	err     error
}

// watch has rec call the profile at the end of every phase.
func (p *memProfile) watch(rec *phases.Record) {
	if p.path == "" {
		return
	}
	rec.AfterPhase(func(name string) {
		if name == p.phase {
			p.write()
		}
	})
}

// write takes the profile, once.
func (p *memProfile) write() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written {
		return
	}
	p.written = true
	runtime.GC()
	if err := atomicfile.WriteFile(p.path, func(w io.Writer) error { return pprof.Lookup("heap").WriteTo(w, 0) }); err != nil {
		p.err = fmt.Errorf("--memprofile: %w", err)
	}
}

// finish is called when the run ends: the error of writing the profile,
// or, when the phase never ran, a note and a profile of the run's end
// instead.
func (p *memProfile) finish(rec *phases.Record, log io.Writer) error {
	if p.path == "" {
		return nil
	}
	p.mu.Lock()
	written := p.written
	p.mu.Unlock()
	if !written {
		fmt.Fprintf(log, "--memprofile-phase %q did not run (phases: %s): %s is the heap profile at the end of the run\n", p.phase, strings.Join(rec.Names(), ", "), p.path)
		p.write()
	}
	return p.err
}

// check finds a --memprofile that cannot be written before training, not
// after it.
func (p *memProfile) check() error {
	if p.path == "" {
		return nil
	}
	if err := atomicfile.Check(p.path); err != nil {
		return usagef("--memprofile: %v", err)
	}
	if fi, err := os.Stat(filepath.Dir(p.path)); err != nil || !fi.IsDir() {
		return usagef("--memprofile %s: its folder %s does not exist", p.path, filepath.Dir(p.path))
	}
	return nil
}
