//go:build !amd64 || purego

package optim

// adamRow is one row's update (see Adam.update).
func adamRow(p, g, m, v []float32, k *[9]float64) { adamRowGo(p, g, m, v, k) }

// scaleRow is scaleGrad's per-range loop (see there).
func scaleRow(g []float32, s float64) { scaleRowGo(g, s) }
