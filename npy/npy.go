// Package npy reads and writes NumPy .npy files (format version 1.0 for
// writing; 1.0, 2.0 and 3.0 for reading) holding float32, int32 or float64
// arrays, so embeddings and topic matrices can be loaded with numpy.load.
//
// The format (numpy/lib/format.py, "NEP 1"): the magic string "\x93NUMPY", a
// major and minor version byte, the header length (uint16 little-endian in
// version 1.0, uint32 in 2.0 and 3.0), then an ASCII Python dict literal such
// as {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with
// spaces and ended by '\n' so that the data starts at a multiple of 64 bytes.
// The data follow as raw elements, C (row-major) order unless fortran_order.
package npy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gtformer/gtformer/internal/atomicfile"
)

// Elem is an element type that can be stored.
type Elem interface{ float32 | int32 | float64 }

const magic = "\x93NUMPY"

// maxElems bounds the element count of a shape so products cannot overflow.
const maxElems = 1 << 50

// align is the header alignment numpy has used since 1.14 (older versions
// used 16; 64 satisfies both).
const align = 64

// descrOf returns the dtype string for T, little-endian.
func descrOf[T Elem]() string {
	var z T
	switch any(z).(type) {
	case float32:
		return "<f4"
	case int32:
		return "<i4"
	default:
		return "<f8"
	}
}

// header returns the full v1.0 preamble (magic through the padded dict).
func header(descr string, shape []int) []byte {
	var s strings.Builder
	s.WriteString("{'descr': '")
	s.WriteString(descr)
	s.WriteString("', 'fortran_order': False, 'shape': (")
	for i, d := range shape {
		if i > 0 {
			s.WriteString(", ")
		}
		s.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		s.WriteByte(',') // a Python 1-tuple
	}
	s.WriteString("), }")
	dict := s.String()
	// 10 bytes of preamble (magic 6, version 2, length 2) + dict + padding +
	// '\n' must be a multiple of align.
	total := 10 + len(dict) + 1
	pad := (align - total%align) % align
	hlen := len(dict) + pad + 1
	b := make([]byte, 0, 10+hlen)
	b = append(b, magic...)
	b = append(b, 1, 0)
	b = binary.LittleEndian.AppendUint16(b, uint16(hlen))
	b = append(b, dict...)
	for range pad {
		b = append(b, ' ')
	}
	return append(b, '\n')
}

// numElems returns the product of shape, or an error for a negative
// dimension or an overflowing product.
func numElems(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d in shape %v", d, shape)
		}
		if d != 0 && n > maxElems/d {
			return 0, fmt.Errorf("shape %v has too many elements", shape)
		}
		n *= d
	}
	return n, nil
}

// checkData reports a shape that does not hold n elements.
func checkData(shape []int, n int) error {
	want, err := numElems(shape)
	if err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	if want != n {
		return fmt.Errorf("npy: shape %v holds %d elements, data has %d", shape, want, n)
	}
	return nil
}

// Encode writes data with the given shape to w in .npy v1.0 format. It is
// an error if the shape's element count differs from len(data).
func Encode[T Elem](w io.Writer, shape []int, data []T) error {
	if err := checkData(shape, len(data)); err != nil {
		return err
	}
	if err := WriteHeader[T](w, shape); err != nil {
		return err
	}
	// Convert in chunks so a large array is not copied whole.
	const chunk = 1 << 14
	var buf []byte
	for i := 0; i < len(data); i += chunk {
		buf = buf[:0]
		for _, v := range data[i:min(i+chunk, len(data))] {
			switch x := any(v).(type) {
			case float32:
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
			case int32:
				buf = binary.LittleEndian.AppendUint32(buf, uint32(x))
			case float64:
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
			}
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// WriteHeader writes the .npy v1.0 preamble of an array of T with the
// given shape to w; the caller then writes its Π shape elements,
// little-endian, in C order. It is for arrays written a row at a time,
// whose rows are never all in memory (Encode is WriteHeader followed by
// the data).
func WriteHeader[T Elem](w io.Writer, shape []int) error {
	if _, err := numElems(shape); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	h := header(descrOf[T](), shape)
	if len(h)-10 > math.MaxUint16 {
		return fmt.Errorf("npy: shape %v too long for a version 1.0 header", shape)
	}
	_, err := w.Write(h)
	return err
}

// Write writes data with the given shape to path atomically: readers see
// the old file or the complete new one, never a partial array.
func Write[T Elem](path string, shape []int, data []T) error {
	// Checked first, so that what can fail inside is the writing.
	if err := checkData(shape, len(data)); err != nil {
		return &fileError{path, err}
	}
	if err := atomicfile.WriteFile(path, func(w io.Writer) error { return Encode(w, shape, data) }); err != nil {
		return fmt.Errorf("npy: %w", err)
	}
	return nil
}

// fileError is a problem with the file path: "npy: PATH: PROBLEM", where
// the problem's own "npy: " is not repeated.
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string {
	return "npy: " + e.path + ": " + strings.TrimPrefix(e.err.Error(), "npy: ")
}

func (e *fileError) Unwrap() error { return e.err }

// Array is a decoded array: Data is []float32, []int32 or []float64 in C
// order, whatever the file's byte order or memory order was.
type Array struct {
	Descr string // dtype as stored, e.g. "<f4"
	Shape []int
	Data  any
}

// dtype is a parsed descr.
type dtype struct {
	kind  byte // 'f' or 'i'
	size  int  // bytes per element
	order binary.ByteOrder
}

func parseDescr(s string) (dtype, error) {
	if len(s) != 3 {
		return dtype{}, fmt.Errorf("unsupported dtype %q (want float32, int32 or float64)", s)
	}
	var d dtype
	switch s[0] {
	case '<', '=':
		d.order = binary.LittleEndian
	case '>':
		d.order = binary.BigEndian
	default:
		return dtype{}, fmt.Errorf("unsupported dtype %q (want float32, int32 or float64)", s)
	}
	switch s[1:] {
	case "f4":
		d.kind, d.size = 'f', 4
	case "i4":
		d.kind, d.size = 'i', 4
	case "f8":
		d.kind, d.size = 'f', 8
	default:
		return dtype{}, fmt.Errorf("unsupported dtype %q (want float32, int32 or float64)", s)
	}
	return d, nil
}

// maxHeader bounds the header length a reader accepts; numpy itself refuses
// headers over 10,000 bytes by default.
const maxHeader = 1 << 16

// Decode reads one .npy array from r. It returns an error, never panics, on
// malformed input, and does not trust the header's shape for allocation: a
// file claiming a huge shape but holding few bytes fails with "truncated".
func Decode(r io.Reader) (*Array, error) {
	br := bufio.NewReader(r)
	pre := make([]byte, 8)
	if _, err := io.ReadFull(br, pre); err != nil {
		return nil, fmt.Errorf("npy: reading magic: %w", eofToUnexpected(err))
	}
	if string(pre[:6]) != magic {
		return nil, fmt.Errorf("npy: not a .npy file (bad magic %q)", pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen int
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", eofToUnexpected(err))
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", eofToUnexpected(err))
		}
		hlen = int(binary.LittleEndian.Uint32(b[:]))
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", major, minor)
	}
	if hlen > maxHeader {
		return nil, fmt.Errorf("npy: header length %d exceeds %d", hlen, maxHeader)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(br, hb); err != nil {
		return nil, fmt.Errorf("npy: reading header: %w", eofToUnexpected(err))
	}
	h, err := parseHeader(string(hb))
	if err != nil {
		return nil, fmt.Errorf("npy: header %q: %w", strings.TrimSpace(string(hb)), err)
	}
	dt, err := parseDescr(h.descr)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	n, err := numElems(h.shape)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	a := &Array{Descr: h.descr, Shape: h.shape}
	switch {
	case dt.kind == 'f' && dt.size == 4:
		a.Data, err = readElems(br, n, dt, func(b []byte) float32 { return math.Float32frombits(dt.order.Uint32(b)) })
	case dt.kind == 'i':
		a.Data, err = readElems(br, n, dt, func(b []byte) int32 { return int32(dt.order.Uint32(b)) })
	default:
		a.Data, err = readElems(br, n, dt, func(b []byte) float64 { return math.Float64frombits(dt.order.Uint64(b)) })
	}
	if err != nil {
		return nil, err
	}
	if h.fortran && len(h.shape) > 1 {
		switch d := a.Data.(type) {
		case []float32:
			a.Data = fortranToC(d, h.shape)
		case []int32:
			a.Data = fortranToC(d, h.shape)
		case []float64:
			a.Data = fortranToC(d, h.shape)
		}
	}
	return a, nil
}

func eofToUnexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readElems reads n elements in bounded chunks, so memory grows with the
// bytes actually present rather than with the claimed shape.
func readElems[T Elem](r io.Reader, n int, dt dtype, conv func([]byte) T) ([]T, error) {
	const chunk = 1 << 16
	out := make([]T, 0, min(n, chunk))
	buf := make([]byte, chunk*dt.size)
	for len(out) < n {
		k := min(n-len(out), chunk)
		got, err := io.ReadFull(r, buf[:k*dt.size])
		for i := 0; i+dt.size <= got; i += dt.size {
			out = append(out, conv(buf[i:i+dt.size]))
		}
		if err != nil {
			return nil, fmt.Errorf("npy: truncated data: %d of %d elements present", len(out), n)
		}
	}
	return out, nil
}

// fortranToC reorders column-major data into row-major order.
func fortranToC[T Elem](src []T, shape []int) []T {
	dst := make([]T, len(src))
	idx := make([]int, len(shape))
	// Walk src in Fortran order (first index fastest), computing the C offset.
	for _, v := range src {
		off := 0
		for d := range shape {
			off = off*shape[d] + idx[d]
		}
		dst[off] = v
		for d := 0; d < len(shape); d++ {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return dst
}

// Read decodes the array in path.
func Read(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	defer f.Close()
	a, err := Decode(f)
	if err != nil {
		return nil, &fileError{path, err}
	}
	return a, nil
}

// ReadAs reads path and returns its data as []T, failing when the stored
// dtype is not T (no silent conversion between float and int).
func ReadAs[T Elem](path string) (data []T, shape []int, err error) {
	a, err := Read(path)
	if err != nil {
		return nil, nil, err
	}
	d, ok := a.Data.([]T)
	if !ok {
		return nil, nil, fmt.Errorf("npy: %s: dtype %s, want %s", path, a.Descr, descrOf[T]())
	}
	return d, a.Shape, nil
}
