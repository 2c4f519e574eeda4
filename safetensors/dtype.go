package safetensors

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// DType is a safetensors element type, spelled as in the header ("F32").
type DType string

// The element types of the safetensors specification. The reader accepts all
// of them (so any valid file opens and lists its tensors); the typed
// accessors convert the ones that map naturally onto Go types.
const (
	BOOL    DType = "BOOL"
	U8      DType = "U8"
	I8      DType = "I8"
	F8E5M2  DType = "F8_E5M2"
	F8E4M3  DType = "F8_E4M3"
	I16     DType = "I16"
	U16     DType = "U16"
	F16     DType = "F16"
	BF16    DType = "BF16"
	I32     DType = "I32"
	U32     DType = "U32"
	F32     DType = "F32"
	F64     DType = "F64"
	I64     DType = "I64"
	U64     DType = "U64"
	invalid DType = ""
)

// Size is the number of bytes per element, or 0 for an unknown dtype.
func (d DType) Size() int {
	switch d {
	case BOOL, U8, I8, F8E5M2, F8E4M3:
		return 1
	case I16, U16, F16, BF16:
		return 2
	case I32, U32, F32:
		return 4
	case F64, I64, U64:
		return 8
	}
	return 0
}

// littleEndian reports whether the host stores numbers little-endian, in
// which case F32 data in the file can be used in place.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// viewFloat32 reinterprets b (len a multiple of 4) as float32s without
// copying when the host is little-endian and b is 4-byte aligned; ok is
// false otherwise and the caller converts.
func viewFloat32(b []byte) (v []float32, ok bool) {
	if !littleEndian {
		return nil, false
	}
	if len(b) == 0 {
		return []float32{}, true
	}
	if uintptr(unsafe.Pointer(&b[0]))%4 != 0 {
		return nil, false
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4), true
}

// toFloat32 converts raw little-endian data of a floating dtype to float32.
// F64 rounds to nearest; F16 and BF16 widen exactly.
func toFloat32(d DType, b []byte) ([]float32, bool) {
	switch d {
	case F32:
		out := make([]float32, len(b)/4)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return out, true
	case F64:
		out := make([]float32, len(b)/8)
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
		return out, true
	case BF16:
		// bfloat16 is the top half of a float32.
		out := make([]float32, len(b)/2)
		for i := range out {
			out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
		}
		return out, true
	case F16:
		out := make([]float32, len(b)/2)
		for i := range out {
			out[i] = halfToFloat32(binary.LittleEndian.Uint16(b[2*i:]))
		}
		return out, true
	}
	return nil, false
}

// halfToFloat32 widens an IEEE 754 binary16 value exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN: keep the payload
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal: rebias 15 -> 127
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal half: value = frac × 2^-24, exactly representable as float32.
	v := float32(frac) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}
