package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/gtformer/gtformer/internal/atomicfile"
)

// peakEvery is how often the heap's size is sampled for --memprofile.
const peakEvery = 500 * time.Millisecond

// startProfiles starts the profiles the flags ask for (an empty path: none)
// and returns the function that ends them and writes their files. Prism
// runs in this process with its workers, so the profiles cover the runner
// and the pipeline's code together. The heap profile is taken whenever
// the heap in use reaches a new high, so it shows what the heap held at
// its peak, which is what the process's peak memory follows, rather than
// what was left at the end.
func startProfiles(cpuPath, memPath string) (stop func() error, err error) {
	var stops []func() error
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err != nil {
			return nil, fmt.Errorf("cpu profile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("cpu profile %s: %w", cpuPath, err)
		}
		stops = append(stops, func() error {
			pprof.StopCPUProfile()
			return f.Close()
		})
	}
	if memPath != "" {
		done, finished := make(chan struct{}), make(chan error)
		go func() { finished <- peakHeap(memPath, done) }()
		stops = append(stops, func() error {
			close(done)
			return <-finished
		})
	}
	return func() error {
		var errs []error
		for _, s := range stops {
			errs = append(errs, s())
		}
		return errors.Join(errs...)
	}, nil
}

// peakHeap keeps the heap profile of the largest heap seen until done is
// closed, then writes it to path.
func peakHeap(path string, done <-chan struct{}) error {
	var peak uint64
	var prof []byte
	tick := time.NewTicker(peakEvery)
	defer tick.Stop()
	sample := func() error {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse <= peak && prof != nil {
			return nil
		}
		peak = ms.HeapInuse
		var b bytes.Buffer
		if err := pprof.Lookup("heap").WriteTo(&b, 0); err != nil {
			return err
		}
		prof = b.Bytes()
		return nil
	}
	for {
		if err := sample(); err != nil {
			return fmt.Errorf("heap profile: %w", err)
		}
		select {
		case <-done:
			fmt.Fprintf(os.Stderr, "heap profile: peak heap in use %d MB\n", peak>>20)
			return writeFile(path, prof)
		case <-tick.C:
		}
	}
}

// writeFile writes a profile whole or not at all.
func writeFile(path string, b []byte) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
