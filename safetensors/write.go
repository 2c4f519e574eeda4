package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/gtformer/gtformer/internal/atomicfile"
	"github.com/gtformer/gtformer/tensor"
)

// metadataKey is the reserved header entry holding string metadata.
const metadataKey = "__metadata__"

// Entry is one tensor to write: Data is []float32 (written as F32), []int32
// (I32), []int64 (I64) or []float64 (F64), with len(Data) = product of Shape.
// Shape may be empty (a scalar, one element).
type Entry struct {
	Name  string
	Shape []int
	Data  any
}

// dtypeOf returns the dtype and element count of e.Data.
func (e Entry) dtypeOf() (DType, int, error) {
	switch d := e.Data.(type) {
	case []float32:
		return F32, len(d), nil
	case []int32:
		return I32, len(d), nil
	case []int64:
		return I64, len(d), nil
	case []float64:
		return F64, len(d), nil
	}
	return invalid, 0, fmt.Errorf("unsupported data type %T (want []float32, []int32, []int64 or []float64)", e.Data)
}

// WriteFile writes tensors as F32, in the order given, to path atomically.
// metadata may be nil.
func WriteFile(path string, tensors []*tensor.Tensor, metadata map[string]string) error {
	entries := make([]Entry, len(tensors))
	for i, t := range tensors {
		if t == nil {
			return fmt.Errorf("safetensors: write %s: tensor %d is nil", path, i)
		}
		entries[i] = Entry{Name: t.Name, Shape: t.Shape, Data: t.Data}
	}
	return Write(path, entries, metadata)
}

// Write writes entries, in the order given, to path atomically: the bytes go
// to a temporary file in the same directory, which is fsynced and renamed
// over path only when complete; on any error it is removed and path is left
// as it was.
func Write(path string, entries []Entry, metadata map[string]string) error {
	// Validate before touching the file system.
	header, err := encodeHeader(entries, metadata)
	if err != nil {
		return fmt.Errorf("safetensors: write %s: %w", path, err)
	}
	err = atomicfile.WriteFile(path, func(w io.Writer) error { return encodeBody(w, header, entries) })
	if err != nil {
		return fmt.Errorf("safetensors: %w", err) // names path already
	}
	return nil
}

// Encode writes entries in safetensors format to w.
func Encode(w io.Writer, entries []Entry, metadata map[string]string) error {
	header, err := encodeHeader(entries, metadata)
	if err != nil {
		return fmt.Errorf("safetensors: encode: %w", err)
	}
	return encodeBody(w, header, entries)
}

// encodeHeader validates entries and returns the 8-byte length prefix plus
// the space-padded JSON header. Metadata comes first with sorted keys, then
// tensors in the given order with contiguous offsets, as the reference
// serialiser lays them out.
func encodeHeader(entries []Entry, metadata map[string]string) ([]byte, error) {
	h := []byte{0, 0, 0, 0, 0, 0, 0, 0, '{'}
	first := true
	if len(metadata) > 0 {
		keys := make([]string, 0, len(metadata))
		for k, v := range metadata {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return nil, fmt.Errorf("metadata %q: not valid UTF-8", k)
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		h = append(h, `"`+metadataKey+`":{`...)
		for i, k := range keys {
			if i > 0 {
				h = append(h, ',')
			}
			h = appendJSONString(h, k)
			h = append(h, ':')
			h = appendJSONString(h, metadata[k])
		}
		h = append(h, '}')
		first = false
	}
	seen := make(map[string]bool, len(entries))
	var off uint64
	for _, e := range entries {
		switch {
		case e.Name == metadataKey:
			return nil, fmt.Errorf("tensor name %q is reserved", e.Name)
		case !utf8.ValidString(e.Name):
			return nil, fmt.Errorf("tensor %q: name is not valid UTF-8", e.Name)
		case seen[e.Name]:
			return nil, fmt.Errorf("tensor %q: duplicate name", e.Name)
		}
		seen[e.Name] = true
		dt, n, err := e.dtypeOf()
		if err != nil {
			return nil, fmt.Errorf("tensor %q: %w", e.Name, err)
		}
		want := 1
		for _, d := range e.Shape {
			if d < 0 {
				return nil, fmt.Errorf("tensor %q: negative dimension in shape %v", e.Name, e.Shape)
			}
			want *= d
		}
		if want != n {
			return nil, fmt.Errorf("tensor %q: shape %v needs %d elements, data has %d", e.Name, e.Shape, want, n)
		}
		end := off + uint64(n)*uint64(dt.Size())
		if !first {
			h = append(h, ',')
		}
		first = false
		h = appendJSONString(h, e.Name)
		h = append(h, `:{"dtype":"`...)
		h = append(h, dt...)
		h = append(h, `","shape":[`...)
		for i, d := range e.Shape {
			if i > 0 {
				h = append(h, ',')
			}
			h = strconv.AppendInt(h, int64(d), 10)
		}
		h = append(h, `],"data_offsets":[`...)
		h = strconv.AppendUint(h, off, 10)
		h = append(h, ',')
		h = strconv.AppendUint(h, end, 10)
		h = append(h, "]}"...)
		off = end
	}
	h = append(h, '}')
	// Pad with spaces so the data section starts 8-byte aligned.
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	binary.LittleEndian.PutUint64(h, uint64(len(h)-8))
	return h, nil
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // cannot fail for a string
	return append(b, q...)
}

// encodeBody writes the header then every tensor's little-endian bytes.
func encodeBody(w io.Writer, header []byte, entries []Entry) error {
	if _, err := w.Write(header); err != nil {
		return err
	}
	var buf []byte // conversion buffer for big-endian hosts
	for _, e := range entries {
		if raw, ok := rawBytes(e.Data); ok {
			if _, err := w.Write(raw); err != nil {
				return err
			}
			continue
		}
		if buf == nil {
			buf = make([]byte, 1<<16)
		}
		if err := writeConverted(w, e.Data, buf); err != nil {
			return err
		}
	}
	return nil
}

// rawBytes views numeric data as its in-memory bytes, which are the file's
// bytes on a little-endian host (no copy of a 100 MB parameter set).
func rawBytes(data any) ([]byte, bool) {
	if !littleEndian {
		return nil, false
	}
	var p unsafe.Pointer
	var n int
	switch d := data.(type) {
	case []float32:
		p, n = unsafe.Pointer(unsafe.SliceData(d)), 4*len(d)
	case []int32:
		p, n = unsafe.Pointer(unsafe.SliceData(d)), 4*len(d)
	case []int64:
		p, n = unsafe.Pointer(unsafe.SliceData(d)), 8*len(d)
	case []float64:
		p, n = unsafe.Pointer(unsafe.SliceData(d)), 8*len(d)
	default:
		return nil, false
	}
	if n == 0 {
		return nil, true
	}
	return unsafe.Slice((*byte)(p), n), true
}

// writeConverted encodes data little-endian through buf (portable path).
func writeConverted(w io.Writer, data any, buf []byte) error {
	k := 0
	flush := func(force bool, room int) error {
		if k+room <= len(buf) && !force {
			return nil
		}
		_, err := w.Write(buf[:k])
		k = 0
		return err
	}
	switch d := data.(type) {
	case []float32:
		for _, v := range d {
			if err := flush(false, 4); err != nil {
				return err
			}
			binary.LittleEndian.PutUint32(buf[k:], math.Float32bits(v))
			k += 4
		}
	case []int32:
		for _, v := range d {
			if err := flush(false, 4); err != nil {
				return err
			}
			binary.LittleEndian.PutUint32(buf[k:], uint32(v))
			k += 4
		}
	case []int64:
		for _, v := range d {
			if err := flush(false, 8); err != nil {
				return err
			}
			binary.LittleEndian.PutUint64(buf[k:], uint64(v))
			k += 8
		}
	case []float64:
		for _, v := range d {
			if err := flush(false, 8); err != nil {
				return err
			}
			binary.LittleEndian.PutUint64(buf[k:], math.Float64bits(v))
			k += 8
		}
	}
	return flush(true, 0)
}
