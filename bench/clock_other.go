//go:build !linux

package bench

import "errors"

func threadClock() (clock, error) {
	return nil, errors.New("bench: measuring in thread CPU time needs Linux")
}
