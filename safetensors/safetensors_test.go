package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/gtformer/gtformer/tensor"
)

// handFile is a complete safetensors file written out byte by byte: a
// 2×2 F32 matrix w = [[1, -2], [0.5, 3]] and an I32 vector ids = [7, -1, 65536],
// with metadata {"format": "pt"}.
var handFile = slices.Concat(
	// Header length 152 = 145 bytes of JSON + 7 spaces of padding.
	[]byte{0x98, 0, 0, 0, 0, 0, 0, 0},
	[]byte(`{"__metadata__":{"format":"pt"},`+
		`"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},`+
		`"ids":{"dtype":"I32","shape":[3],"data_offsets":[16,28]}}`+"       "),
	[]byte{
		0x00, 0x00, 0x80, 0x3f, // 1.0
		0x00, 0x00, 0x00, 0xc0, // -2.0
		0x00, 0x00, 0x00, 0x3f, // 0.5
		0x00, 0x00, 0x40, 0x40, // 3.0
		0x07, 0x00, 0x00, 0x00, // 7
		0xff, 0xff, 0xff, 0xff, // -1
		0x00, 0x00, 0x01, 0x00, // 65536
	},
)

func TestHandWrittenFile(t *testing.T) {
	if len(handFile) != 8+152+28 {
		t.Fatalf("hand file is %d bytes, the literal is miscounted", len(handFile))
	}
	f, err := Decode("hand", handFile)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Names(); !slices.Equal(got, []string{"w", "ids"}) {
		t.Errorf("Names = %v", got)
	}
	if got := f.Metadata(); len(got) != 1 || got["format"] != "pt" {
		t.Errorf("Metadata = %v", got)
	}
	dt, shape, err := f.Info("w")
	if err != nil || dt != F32 || !slices.Equal(shape, []int{2, 2}) {
		t.Errorf("Info(w) = %v %v %v", dt, shape, err)
	}
	w, shape, err := f.Float32("w")
	if err != nil || !slices.Equal(w, []float32{1, -2, 0.5, 3}) || !slices.Equal(shape, []int{2, 2}) {
		t.Errorf("Float32(w) = %v %v %v", w, shape, err)
	}
	ids, shape, err := f.Int32("ids")
	if err != nil || !slices.Equal(ids, []int32{7, -1, 65536}) || !slices.Equal(shape, []int{3}) {
		t.Errorf("Int32(ids) = %v %v %v", ids, shape, err)
	}
	if _, _, err := f.Float32("ids"); err == nil {
		t.Error("Float32 of an I32 tensor: want an error")
	}
	// ErrNotFound carries the prefix too; the message carries it once.
	if _, _, err := f.Float32("nope"); !errors.Is(err, ErrNotFound) || err.Error() != `safetensors: hand: tensor "nope": no such tensor` {
		t.Errorf("Float32(nope): err = %v, want ErrNotFound", err)
	}

	// The writer produces exactly these bytes.
	var buf bytes.Buffer
	err = Encode(&buf, []Entry{
		{Name: "w", Shape: []int{2, 2}, Data: []float32{1, -2, 0.5, 3}},
		{Name: "ids", Shape: []int{3}, Data: []int32{7, -1, 65536}},
	}, map[string]string{"format": "pt"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), handFile) {
		t.Errorf("Encode wrote\n%q\nwant\n%q", buf.Bytes(), handFile)
	}
}

func TestRoundTrip(t *testing.T) {
	nan := math.Float32frombits(0x7fc00123) // NaN with a payload: must survive bit for bit
	entries := []Entry{
		{Name: "emb.weight", Shape: []int{3, 4}, Data: []float32{0, 1, -1, float32(math.Inf(1)), nan, float32(math.Copysign(0, -1)), 1e-45, 3.4e38, 5, 6, 7, 8}},
		{Name: "empty", Shape: []int{0, 5}, Data: []float32{}},
		{Name: "scalar", Shape: []int{}, Data: []float32{2.5}},
		{Name: "counts", Shape: []int{2, 2}, Data: []int32{math.MinInt32, -1, 0, math.MaxInt32}},
		{Name: "step", Shape: []int{1}, Data: []int64{1 << 40}},
		{Name: "double", Shape: []int{2}, Data: []float64{1.0 / 3, -1e300}},
		{Name: "ünïcode \"quoted\"", Shape: []int{1, 1, 1, 1}, Data: []float32{9}},
	}
	meta := map[string]string{"step": "12", "b": "x\ny", "a": ""}
	path := filepath.Join(t.TempDir(), "rt.safetensors")
	if err := Write(path, entries, meta); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if got := f.Names(); !slices.Equal(got, names) {
		t.Errorf("Names = %q, want %q", got, names)
	}
	if got := f.Metadata(); len(got) != len(meta) || got["b"] != "x\ny" || got["step"] != "12" {
		t.Errorf("Metadata = %q", got)
	}
	for _, e := range entries {
		dt, shape, err := f.Info(e.Name)
		want, _, _ := e.dtypeOf()
		if err != nil || dt != want || !slices.Equal(shape, e.Shape) {
			t.Errorf("%s: Info = %v %v %v, want %v %v", e.Name, dt, shape, err, want, e.Shape)
			continue
		}
		switch d := e.Data.(type) {
		case []float32:
			got, _, err := f.Float32(e.Name)
			if err != nil || !equalBits(got, d) {
				t.Errorf("%s: Float32 = %v %v, want %v", e.Name, got, err, d)
			}
		case []int32:
			got, _, err := f.Int32(e.Name)
			if err != nil || !slices.Equal(got, d) {
				t.Errorf("%s: Int32 = %v %v, want %v", e.Name, got, err, d)
			}
		case []int64:
			got, _, err := f.Int64(e.Name)
			if err != nil || !slices.Equal(got, d) {
				t.Errorf("%s: Int64 = %v %v, want %v", e.Name, got, err, d)
			}
			if _, _, err := f.Int32(e.Name); err == nil {
				t.Errorf("%s: Int32 of 2^40: want a range error", e.Name)
			}
		case []float64:
			got, _, err := f.Float32(e.Name)
			if err != nil || got[0] != float32(d[0]) || !math.IsInf(float64(got[1]), -1) {
				t.Errorf("%s: Float32 = %v %v, want %v rounded to float32", e.Name, got, err, d)
			}
		}
	}
	// The header is padded so the data section is 8-byte aligned.
	raw, _ := os.ReadFile(path)
	if n := binary.LittleEndian.Uint64(raw); n%8 != 0 {
		t.Errorf("header length %d not a multiple of 8", n)
	}
}

func TestWriteFileReadFile(t *testing.T) {
	a := tensor.Param("layer.0.w", 2, 3)
	for i := range a.Data {
		a.Data[i] = float32(i) - 2.5
	}
	b := tensor.FromData([]float32{4, 5}, 2)
	b.Name = "layer.0.b"
	path := filepath.Join(t.TempDir(), "w.safetensors")
	if err := WriteFile(path, []*tensor.Tensor{a, b}, map[string]string{"model": "gtformer"}); err != nil {
		t.Fatal(err)
	}
	got, meta, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if meta["model"] != "gtformer" || len(got) != 2 {
		t.Fatalf("ReadFile: %d tensors, metadata %v", len(got), meta)
	}
	for _, want := range []*tensor.Tensor{a, b} {
		g := got[want.Name]
		if g == nil || g.Name != want.Name || !tensor.SameShape(g, want) || !equalBits(g.Data, want.Data) || g.Grad != nil {
			t.Errorf("%s: got %v %v", want.Name, g, g.Data)
		}
	}
	// Overwriting keeps no temporary files behind.
	if err := WriteFile(path, []*tensor.Tensor{b}, nil); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("directory holds %d files after two writes, want 1", len(entries))
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		entries []Entry
		meta    map[string]string
		want    string
	}{
		{"duplicate", []Entry{{"a", []int{1}, []float32{1}}, {"a", []int{1}, []float32{2}}}, nil, "duplicate"},
		{"reserved", []Entry{{"__metadata__", []int{1}, []float32{1}}}, nil, "reserved"},
		{"shape", []Entry{{"a", []int{2, 2}, []float32{1, 2, 3}}}, nil, "needs 4 elements"},
		{"negative", []Entry{{"a", []int{-1}, []float32{}}}, nil, "negative"},
		{"dtype", []Entry{{"a", []int{1}, []uint8{1}}}, nil, "unsupported data type"},
		{"utf8 name", []Entry{{"a\xff", []int{1}, []float32{1}}}, nil, "UTF-8"},
		{"utf8 meta", nil, map[string]string{"k": "\xfe"}, "UTF-8"},
	}
	path := filepath.Join(dir, "keep.safetensors")
	if err := Write(path, []Entry{{"old", []int{1}, []float32{1}}}, nil); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(path, tc.entries, tc.meta)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want one naming %s and containing %q", err, path, tc.want)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("failed write changed the existing file")
			}
		})
	}
	if err := WriteFile(path, []*tensor.Tensor{nil}, nil); err == nil {
		t.Error("nil tensor: want an error")
	}
	// A failure after the temporary file exists (rename onto a directory)
	// removes the temporary file.
	sub := filepath.Join(dir, "sub")
	target := filepath.Join(sub, "isdir")
	if err := os.MkdirAll(filepath.Join(target, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(target, []Entry{{"a", []int{1}, []float32{1}}}, nil); err == nil {
		t.Fatal("write over a non-empty directory: want an error")
	}
	if ents, _ := os.ReadDir(sub); len(ents) != 1 {
		t.Errorf("after failed rename the directory holds %d entries, want 1 (no temp file)", len(ents))
	}
}

// header builds a file from a header string and a data section, with the
// correct length prefix.
func header(h string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	return append(append(b, h...), data...)
}

func TestReadErrors(t *testing.T) {
	eight := make([]byte, 8)
	tests := []struct {
		name   string
		file   []byte
		tensor string // named in the error
		want   string
	}{
		{"empty", nil, "", "shorter than"},
		{"short", []byte{1, 0, 0}, "", "shorter than"},
		{"length beyond file", binary.LittleEndian.AppendUint64(nil, 100), "", "exceeds the 0 bytes"},
		{"length beyond cap", append(binary.LittleEndian.AppendUint64(nil, 1<<40), make([]byte, 16)...), "", "cap"},
		{"length huge", binary.LittleEndian.AppendUint64(nil, math.MaxUint64), "", "cap"},
		{"not json", header("hello   ", nil), "", "not a JSON object"},
		{"array", header("[1,2]   ", nil), "", "not a JSON object"},
		{"truncated json", header(`{"a":{"dtype":"F32",`, nil), "a", "header entry"},
		{"trailing junk", header(`{}x`, nil), "", "after the object"},
		{"two objects", header(`{} {}`, nil), "", "after the object"},
		{"unknown dtype", header(`{"a":{"dtype":"F31","shape":[2],"data_offsets":[0,8]}}`, eight), "a", "unknown dtype"},
		{"missing shape", header(`{"a":{"dtype":"F32","data_offsets":[0,8]}}`, eight), "a", "needs"},
		{"null offsets", header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":null}}`, eight), "a", "needs"},
		{"entry not object", header(`{"a":3}`, nil), "a", "header entry"},
		{"three offsets", header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4,8]}}`, eight), "a", "3 values"},
		{"negative offset", header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[-8,0]}}`, eight), "a", "non-negative"},
		{"float offset", header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8.0]}}`, eight), "a", "non-negative"},
		{"reversed offsets", header(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, eight), "a", "outside"},
		{"offset beyond data", header(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, eight), "a", "outside"},
		{"negative dim", header(`{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, eight), "a", "shape"},
		{"shape mismatch", header(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, eight), "a", "needs 12 bytes"},
		{"dtype size mismatch", header(`{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}}`, eight), "a", "needs 16 bytes"},
		{"shape overflow", header(`{"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,8]}}`, eight), "a", "more than 2^64"},
		{"shape overflow to span", header(`{"a":{"dtype":"F64","shape":[2305843009213693953],"data_offsets":[0,8]}}`, eight), "a", "needs"},
		{"duplicate name", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), "a", "duplicate"},
		{"duplicate metadata", header(`{"__metadata__":{},"__metadata__":{}}`, nil), "", "duplicate"},
		{"metadata not strings", header(`{"__metadata__":{"k":1}}`, nil), "", "strings"},
		{"overlap", header(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), "b", "overlap tensor \"a\""},
		{"gap", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight), "a", "gap"},
		{"not covering", header(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, eight), "", "cover 4 bytes of the 8"},
		{"data without tensors", header(`{}`, eight), "", "cover 0 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.safetensors")
			if err := os.WriteFile(path, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, read := range []func() error{
				func() error { _, err := Open(path); return err },
				func() error { _, _, err := ReadFile(path); return err },
				func() error { _, err := Decode(path, tc.file); return err },
			} {
				err := read()
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("err = %v, want a *FormatError", err)
				}
				if fe.File != path || fe.Tensor != tc.tensor || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %v (file %q, tensor %q), want file %s, tensor %q, text %q", err, fe.File, fe.Tensor, path, tc.tensor, tc.want)
				}
			}
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Open of a missing file: want an error")
	}
}

// TestForeignLayouts covers valid files our writer never produces: tensors
// stored out of header order, no padding, zero-size tensors, and an F32
// tensor at an odd offset (converted rather than viewed in place).
func TestForeignLayouts(t *testing.T) {
	data := []byte{
		0x00, 0x3c, // F16 1.0 at [0,2]
		0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40, // F32 [1, 2] at [2,10], unaligned
		0x80, 0x3f, // BF16 1.0 at [10,12]
	}
	h := `{"f32":{"dtype":"F32","shape":[2],"data_offsets":[2,10]},` +
		`"z":{"dtype":"F32","shape":[0],"data_offsets":[2,2]},` +
		`"bf":{"dtype":"BF16","shape":[1],"data_offsets":[10,12]},` +
		`"half":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},` +
		`"b":{"dtype":"BOOL","shape":[0],"data_offsets":[12,12]}}`
	f, err := Decode("foreign", header(h, data))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want []float32
	}{{"f32", []float32{1, 2}}, {"z", []float32{}}, {"bf", []float32{1}}, {"half", []float32{1}}} {
		got, _, err := f.Float32(tc.name)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v %v, want %v", tc.name, got, err, tc.want)
		}
	}
	if _, _, err := f.Float32("b"); err == nil {
		t.Error("Float32 of BOOL: want an error")
	}
	if _, err := f.Tensor("z"); err != nil {
		t.Errorf("Tensor of shape [0]: %v", err)
	}
}

func TestHalfToFloat32(t *testing.T) {
	tests := []struct {
		h    uint16
		want float32
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x3555, 0.333251953125},
		{0x0001, 1.0 / (1 << 24)}, {0x03ff, 1023.0 / (1 << 24)}, {0x0400, 1.0 / (1 << 14)},
		{0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
		{0x0000, 0}, {0x8001, -1.0 / (1 << 24)},
	}
	for _, tc := range tests {
		if got := halfToFloat32(tc.h); got != tc.want {
			t.Errorf("half %#04x = %v, want %v", tc.h, got, tc.want)
		}
	}
	if got := halfToFloat32(0x8000); math.Float32bits(got) != 0x80000000 {
		t.Errorf("half -0 = %v", got)
	}
	if got := halfToFloat32(0x7e00); !math.IsNaN(float64(got)) {
		t.Errorf("half NaN = %v", got)
	}
}

func TestRankOutsideTensor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.safetensors")
	if err := Write(path, []Entry{{"s", nil, []float32{1}}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "rank 0") {
		t.Errorf("ReadFile of a scalar: err = %v, want a rank error", err)
	}
}

// TestOpenAllocations checks that Open reads the data section with one
// allocation and that F32 tensors are views into it.
func TestOpenAllocations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.safetensors")
	big := make([]float32, 1<<20)
	if err := Write(path, []Entry{{"a", []int{1 << 19}, big[:1<<19]}, {"b", []int{1 << 19}, big[1<<19:]}}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _, _ := f.Float32("a")
	b, _, _ := f.Float32("b")
	if uintptrOf(b) != uintptrOf(a)+4*uintptr(len(a)) {
		t.Error("F32 tensors are not views into one data buffer")
	}
	// Bytes allocated by Open: the data section plus a small header-sized
	// overhead, not a second copy of the data.
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	g, err := Open(path)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	size := uint64(4 << 20)
	if got := m1.TotalAlloc - m0.TotalAlloc; got < size || got > size+64<<10 {
		t.Errorf("Open allocated %d bytes for a %d-byte data section", got, size)
	}
	runtime.KeepAlive(g)
}

func uintptrOf(v []float32) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(v))) }

func equalBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
