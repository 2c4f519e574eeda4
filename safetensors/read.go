package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/gtformer/gtformer/tensor"
)

// MaxHeaderSize caps the JSON header, as the reference implementation does
// (100 MB), so that a corrupt length cannot make the reader allocate
// gigabytes before it finds out.
const MaxHeaderSize = 100_000_000

// FormatError reports a malformed file: which file, which tensor (empty when
// the problem is not about one tensor), and what is wrong.
type FormatError struct {
	File   string
	Tensor string
	Err    error
}

func (e *FormatError) Error() string {
	// Err may be ErrNotFound, which carries the prefix too: print it once.
	msg := strings.TrimPrefix(e.Err.Error(), "safetensors: ")
	if e.Tensor != "" {
		return fmt.Sprintf("safetensors: %s: tensor %q: %s", e.File, e.Tensor, msg)
	}
	return fmt.Sprintf("safetensors: %s: %s", e.File, msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

// ErrNotFound is wrapped by accessor errors for a name the file lacks.
var ErrNotFound = errors.New("safetensors: no such tensor")

// info is one validated header entry; begin and end index File.data.
type info struct {
	dtype      DType
	shape      []int
	begin, end int
}

// File is an opened safetensors file: a validated header and the data
// section in memory. Accessors are safe for concurrent use.
type File struct {
	path     string
	names    []string // header order
	infos    map[string]info
	metadata map[string]string
	data     []byte
}

// Open reads and validates the safetensors file at path. The data section is
// read with one allocation; see the package comment for the mmap path.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	f, dataOff, err := readHeader(path, fh, st.Size())
	if err != nil {
		return nil, err
	}
	n := st.Size() - dataOff
	// Back the data with uint64s so that it starts 8-byte aligned and F32
	// (and F64, I64) tensors can be viewed in place.
	words := make([]uint64, (n+7)/8)
	buf := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), len(words)*8)[:n]
	if _, err := fh.ReadAt(buf, dataOff); err != nil {
		return nil, fmt.Errorf("safetensors: %s: read data section: %w", path, err)
	}
	f.data = buf
	return f, nil
}

// Decode parses a safetensors image held in memory; name labels errors. The
// File aliases b.
func Decode(name string, b []byte) (*File, error) {
	f, dataOff, err := readHeader(name, bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	f.data = b[dataOff:]
	return f, nil
}

// ReadFile reads every tensor of a floating dtype (converted to float32) and
// the metadata. Tensors must have rank 1..tensor.MaxDims; use Open for other
// files. The returned tensors share one buffer, each its own region.
func ReadFile(path string) (map[string]*tensor.Tensor, map[string]string, error) {
	f, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]*tensor.Tensor, len(f.names))
	for _, name := range f.names {
		t, err := f.Tensor(name)
		if err != nil {
			return nil, nil, err
		}
		out[name] = t
	}
	return out, f.Metadata(), nil
}

// readHeader reads and validates the length prefix and JSON header of a file
// of the given size, returning the File without data and the data offset.
func readHeader(path string, r io.ReaderAt, size int64) (*File, int64, error) {
	fail := func(tensor string, format string, args ...any) (*File, int64, error) {
		return nil, 0, &FormatError{File: path, Tensor: tensor, Err: fmt.Errorf(format, args...)}
	}
	var prefix [8]byte
	if size < 8 {
		return fail("", "file is %d bytes, shorter than the 8-byte header length", size)
	}
	if _, err := r.ReadAt(prefix[:], 0); err != nil {
		return fail("", "read header length: %v", err)
	}
	n := binary.LittleEndian.Uint64(prefix[:])
	switch {
	case n > MaxHeaderSize:
		return fail("", "header length %d exceeds the %d-byte cap", n, MaxHeaderSize)
	case n > uint64(size-8):
		return fail("", "header length %d exceeds the %d bytes after the length prefix", n, size-8)
	case n < 2:
		return fail("", "header length %d is too short for a JSON object", n)
	}
	hdr := make([]byte, n)
	if _, err := r.ReadAt(hdr, 8); err != nil {
		return fail("", "read header: %v", err)
	}
	dataLen := size - 8 - int64(n)
	f, err := parseHeader(path, hdr, dataLen)
	if err != nil {
		return nil, 0, err
	}
	return f, 8 + int64(n), nil
}

// rawInfo is a header entry as written; pointers tell missing from zero.
type rawInfo struct {
	DType       *string        `json:"dtype"`
	Shape       *[]json.Number `json:"shape"`
	DataOffsets *[]json.Number `json:"data_offsets"`
}

// parseHeader decodes the JSON header token by token (so duplicate names are
// caught, which decoding into a map would silently merge) and checks every
// entry against a data section of dataLen bytes.
func parseHeader(path string, hdr []byte, dataLen int64) (*File, error) {
	fail := func(tensor string, format string, args ...any) (*File, error) {
		return nil, &FormatError{File: path, Tensor: tensor, Err: fmt.Errorf(format, args...)}
	}
	dec := json.NewDecoder(bytes.NewReader(hdr))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fail("", "header is not a JSON object")
	}
	f := &File{path: path, infos: map[string]info{}}
	sawMeta := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail("", "header JSON: %v", err)
		}
		name, ok := tok.(string)
		if !ok {
			return fail("", "header JSON: key expected, got %v", tok)
		}
		if name == metadataKey {
			if sawMeta {
				return fail("", "duplicate %s", metadataKey)
			}
			sawMeta = true
			var m map[string]string
			if err := dec.Decode(&m); err != nil {
				return fail("", "%s must map strings to strings: %v", metadataKey, err)
			}
			f.metadata = m
			continue
		}
		if _, dup := f.infos[name]; dup {
			return fail(name, "duplicate name")
		}
		var ri rawInfo
		if err := dec.Decode(&ri); err != nil {
			return fail(name, `header entry is not {"dtype": ..., "shape": [...], "data_offsets": [b, e]}: %v`, err)
		}
		in, err := checkEntry(ri, dataLen)
		if err != nil {
			return nil, &FormatError{File: path, Tensor: name, Err: err}
		}
		f.infos[name] = in
		f.names = append(f.names, name)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return fail("", "header JSON: %v", err)
	}
	// Only padding may follow the object.
	for _, c := range hdr[dec.InputOffset():] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return fail("", "header JSON: unexpected %q after the object", c)
		}
	}
	if err := checkTiling(f, dataLen); err != nil {
		return nil, err
	}
	return f, nil
}

// checkEntry validates one header entry on its own.
func checkEntry(ri rawInfo, dataLen int64) (info, error) {
	var in info
	if ri.DType == nil || ri.Shape == nil || ri.DataOffsets == nil {
		return in, errors.New(`entry needs "dtype", "shape" and "data_offsets"`)
	}
	in.dtype = DType(*ri.DType)
	size := in.dtype.Size()
	if size == 0 {
		return in, fmt.Errorf("unknown dtype %q", *ri.DType)
	}
	offs := *ri.DataOffsets
	if len(offs) != 2 {
		return in, fmt.Errorf("data_offsets has %d values, want 2", len(offs))
	}
	var be [2]int64
	for i, s := range offs {
		v, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil || v < 0 {
			return in, fmt.Errorf("data_offsets: %q is not a non-negative integer", s)
		}
		be[i] = v
	}
	if be[0] > be[1] || be[1] > dataLen {
		return in, fmt.Errorf("data_offsets [%d, %d] outside the %d-byte data section", be[0], be[1], dataLen)
	}
	in.begin, in.end = int(be[0]), int(be[1])
	// Element count, with overflow checked: a valid count times the size
	// can never exceed the span, which fits in the file.
	in.shape = make([]int, len(*ri.Shape))
	count, overflow := uint64(1), false
	for i, s := range *ri.Shape {
		v, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil || v < 0 {
			return in, fmt.Errorf("shape: %q is not a non-negative integer", s)
		}
		in.shape[i] = int(v)
		hi, lo := bits.Mul64(count, uint64(v))
		if hi != 0 || lo > math.MaxInt64 {
			overflow = true
		}
		count = lo
	}
	span := uint64(be[1] - be[0])
	if overflow || count > span || count*uint64(size) != span {
		return in, fmt.Errorf("shape %v of %s needs %s bytes, data_offsets span %d",
			in.shape, in.dtype, needBytes(overflow, count, size), span)
	}
	return in, nil
}

func needBytes(overflow bool, count uint64, size int) string {
	hi, lo := bits.Mul64(count, uint64(size))
	if overflow || hi != 0 {
		return "more than 2^64"
	}
	return strconv.FormatUint(lo, 10)
}

// checkTiling requires the tensors to cover the data section exactly: sorted
// by offset, each starts where the previous ended, and the last ends at the
// end of the file (the reference implementation's rule).
func checkTiling(f *File, dataLen int64) error {
	order := slices.Clone(f.names)
	slices.SortStableFunc(order, func(a, b string) int {
		x, y := f.infos[a], f.infos[b]
		if x.begin != y.begin {
			return x.begin - y.begin
		}
		return x.end - y.end
	})
	at, prev := 0, ""
	for _, name := range order {
		in := f.infos[name]
		switch {
		case in.begin < at:
			return &FormatError{File: f.path, Tensor: name, Err: fmt.Errorf("data_offsets [%d, %d] overlap tensor %q, which ends at %d", in.begin, in.end, prev, at)}
		case in.begin > at:
			return &FormatError{File: f.path, Tensor: name, Err: fmt.Errorf("data_offsets [%d, %d] leave a gap: the previous tensor ends at %d", in.begin, in.end, at)}
		}
		at, prev = in.end, name
	}
	if int64(at) != dataLen {
		return &FormatError{File: f.path, Err: fmt.Errorf("tensors cover %d bytes of the %d-byte data section", at, dataLen)}
	}
	return nil
}

// Names lists the tensors in header order.
func (f *File) Names() []string { return slices.Clone(f.names) }

// Metadata returns a copy of the header's __metadata__ (never nil).
func (f *File) Metadata() map[string]string {
	m := make(map[string]string, len(f.metadata))
	for k, v := range f.metadata {
		m[k] = v
	}
	return m
}

// Info returns a tensor's dtype and shape.
func (f *File) Info(name string) (DType, []int, error) {
	in, err := f.lookup(name)
	if err != nil {
		return invalid, nil, err
	}
	return in.dtype, slices.Clone(in.shape), nil
}

func (f *File) lookup(name string) (info, error) {
	in, ok := f.infos[name]
	if !ok {
		return in, &FormatError{File: f.path, Tensor: name, Err: ErrNotFound}
	}
	return in, nil
}

// Raw returns a tensor's dtype, shape and little-endian bytes (aliasing the
// file's buffer).
func (f *File) Raw(name string) (DType, []int, []byte, error) {
	in, err := f.lookup(name)
	if err != nil {
		return invalid, nil, nil, err
	}
	return in.dtype, slices.Clone(in.shape), f.data[in.begin:in.end:in.end], nil
}

// Float32 returns a floating tensor (F32, F64, F16 or BF16) as float32 with
// its shape. F32 data is returned without copying when possible (it then
// aliases the file's buffer; tensors never overlap, so writing into one does
// not affect another); other dtypes are converted into a new slice.
func (f *File) Float32(name string) ([]float32, []int, error) {
	dt, shape, b, err := f.Raw(name)
	if err != nil {
		return nil, nil, err
	}
	if dt == F32 {
		if v, ok := viewFloat32(b); ok {
			return v, shape, nil
		}
	}
	v, ok := toFloat32(dt, b)
	if !ok {
		return nil, nil, &FormatError{File: f.path, Tensor: name, Err: fmt.Errorf("dtype %s is not floating point", dt)}
	}
	return v, shape, nil
}

// Int64 returns an I32 or I64 tensor as int64 with its shape.
func (f *File) Int64(name string) ([]int64, []int, error) {
	dt, shape, b, err := f.Raw(name)
	if err != nil {
		return nil, nil, err
	}
	switch dt {
	case I32:
		out := make([]int64, len(b)/4)
		for i := range out {
			out[i] = int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		}
		return out, shape, nil
	case I64:
		out := make([]int64, len(b)/8)
		for i := range out {
			out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
		return out, shape, nil
	}
	return nil, nil, &FormatError{File: f.path, Tensor: name, Err: fmt.Errorf("dtype %s is not I32 or I64", dt)}
}

// Int32 returns an I32 tensor, or an I64 tensor whose values all fit, as
// int32 with its shape.
func (f *File) Int32(name string) ([]int32, []int, error) {
	v, shape, err := f.Int64(name)
	if err != nil {
		return nil, nil, err
	}
	out := make([]int32, len(v))
	for i, x := range v {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return nil, nil, &FormatError{File: f.path, Tensor: name, Err: fmt.Errorf("element %d = %d does not fit in int32", i, x)}
		}
		out[i] = int32(x)
	}
	return out, shape, nil
}

// Tensor returns a floating tensor as a *tensor.Tensor named name, without a
// gradient. Its rank must be 1..tensor.MaxDims.
func (f *File) Tensor(name string) (*tensor.Tensor, error) {
	data, shape, err := f.Float32(name)
	if err != nil {
		return nil, err
	}
	if len(shape) < 1 || len(shape) > tensor.MaxDims {
		return nil, &FormatError{File: f.path, Tensor: name, Err: fmt.Errorf("rank %d (shape %v) is outside 1..%d", len(shape), shape, tensor.MaxDims)}
	}
	t := tensor.FromData(data, shape...)
	t.Name = name
	return t, nil
}

// Close releases the data section. The File must not be used afterwards;
// slices it returned stay valid (they keep the buffer alive).
func (f *File) Close() error {
	f.data = nil
	return nil
}
