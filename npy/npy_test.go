package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// npyFile assembles a .npy v1.0 file by hand from a dict literal (padded
// here, independently of header()) and raw data bytes.
func npyFile(dict string, data []byte) []byte {
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	h := dict + strings.Repeat(" ", pad) + "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	b = append(b, h...)
	return append(b, data...)
}

func TestEncodeMatchesSpecBytes(t *testing.T) {
	// Expected bytes written out literally per the NumPy format spec.
	f32 := "\x93NUMPY\x01\x00\x76\x00" +
		"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + strings.Repeat(" ", 58) + "\n" +
		"\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40\x00\x00\xa0\x40\x00\x00\xc0\x40"
	i32 := "\x93NUMPY\x01\x00\x76\x00" +
		"{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }" + strings.Repeat(" ", 60) + "\n" +
		"\x01\x00\x00\x00\xfe\xff\xff\xff\x03\x00\x00\x00"
	f64 := "\x93NUMPY\x01\x00\x76\x00" +
		"{'descr': '<f8', 'fortran_order': False, 'shape': (), }" + strings.Repeat(" ", 62) + "\n" +
		"\x00\x00\x00\x00\x00\x00\xf8\x3f"
	tests := []struct {
		name string
		enc  func(*bytes.Buffer) error
		want string
	}{
		{"float32 2x3", func(b *bytes.Buffer) error { return Encode(b, []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}) }, f32},
		{"int32 3", func(b *bytes.Buffer) error { return Encode(b, []int{3}, []int32{1, -2, 3}) }, i32},
		{"float64 scalar", func(b *bytes.Buffer) error { return Encode(b, []int{}, []float64{1.5}) }, f64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.enc(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Fatalf("\ngot  %q\nwant %q", b.String(), tc.want)
			}
			if off := strings.IndexByte(tc.want, '\n') + 1; off != 128 {
				t.Fatalf("test vector's data starts at %d, want 128", off)
			}
			// And the reader decodes the literal bytes.
			if _, err := Decode(strings.NewReader(tc.want)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		shape []int
		data  any
	}{
		{"float32 matrix", []int{3, 4}, []float32{0, 1, -1, float32(math.Pi), 1e-30, 3e38, float32(math.Inf(1)), -0.5, 2, 3, 4, 5}},
		{"int32 vector", []int{5}, []int32{0, 1, -1, math.MaxInt32, math.MinInt32}},
		{"float64 3d", []int{2, 1, 2}, []float64{math.SmallestNonzeroFloat64, -math.MaxFloat64, 0.1, 7}},
		{"empty rows", []int{0, 300}, []float32{}},
		{"large", []int{300, 301}, make([]float32, 300*301)}, // spans several read chunks
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("a%d.npy", i))
			var err error
			switch d := tc.data.(type) {
			case []float32:
				for k := range d {
					if tc.name == "large" {
						d[k] = float32(k) * 0.25
					}
				}
				err = Write(path, tc.shape, d)
			case []int32:
				err = Write(path, tc.shape, d)
			case []float64:
				err = Write(path, tc.shape, d)
			}
			if err != nil {
				t.Fatal(err)
			}
			a, err := Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.Shape, tc.shape) {
				t.Errorf("shape %v, want %v", a.Shape, tc.shape)
			}
			if !reflect.DeepEqual(a.Data, tc.data) {
				t.Errorf("data differs after round trip")
			}
			raw, _ := os.ReadFile(path)
			if hl := 10 + int(binary.LittleEndian.Uint16(raw[8:10])); hl%64 != 0 || raw[hl-1] != '\n' {
				t.Errorf("data offset %d not 64-aligned or header not newline-terminated", hl)
			}
		})
	}
}

func TestReadAsTypeCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.npy")
	if err := Write(path, []int{2}, []int32{7, 8}); err != nil {
		t.Fatal(err)
	}
	if d, shape, err := ReadAs[int32](path); err != nil || !reflect.DeepEqual(d, []int32{7, 8}) || !reflect.DeepEqual(shape, []int{2}) {
		t.Fatalf("ReadAs[int32] = %v %v %v", d, shape, err)
	}
	if _, _, err := ReadAs[float32](path); err == nil || !strings.Contains(err.Error(), "<i4") {
		t.Fatalf("ReadAs[float32] of an int32 file: err = %v, want a dtype error", err)
	}
}

func TestDecodeVariants(t *testing.T) {
	tests := []struct {
		name  string
		file  []byte
		shape []int
		data  any
	}{
		{"fortran order", npyFile("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
			le32(1, 4, 2, 5, 3, 6)), []int{2, 3}, []int32{1, 2, 3, 4, 5, 6}},
		{"big endian f8", npyFile("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }",
			[]byte("\x3f\xf8\x00\x00\x00\x00\x00\x00\xc0\x00\x00\x00\x00\x00\x00\x00")), []int{2}, []float64{1.5, -2}},
		{"keys reordered, double quotes, no trailing comma", npyFile(`{"shape": (1, 1), "fortran_order": False, "descr": "<f4"}`,
			le32(math.Float32bits(2.5))), []int{1, 1}, []float32{2.5}},
		{"version 2.0", append(append([]byte("\x93NUMPY\x02\x00\x3a\x00\x00\x00"),
			"{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }\n"...), le32(9)...), []int{1}, []int32{9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Decode(bytes.NewReader(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a.Shape, tc.shape) || !reflect.DeepEqual(a.Data, tc.data) {
				t.Fatalf("got %v %v, want %v %v", a.Shape, a.Data, tc.shape, tc.data)
			}
		})
	}
}

func le32(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

func TestDecodeErrors(t *testing.T) {
	good := npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", le32(1, 2))
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "reading magic"},
		{"bad magic", []byte("PK\x03\x04xxxxxxxxxx"), "not a .npy file"},
		{"version 9", []byte("\x93NUMPY\x09\x00\x00\x00"), "unsupported format version 9.0"},
		{"short header", good[:40], "reading header"},
		{"truncated data", good[:len(good)-1], "truncated data: 1 of 2 elements"},
		{"huge shape, little data", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }", le32(1)), "truncated data"},
		{"overflowing shape", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 1000000000, 1000000000), }", nil), "too many elements"},
		{"object dtype", npyFile("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", nil), `unsupported dtype "|O"`},
		{"int64 dtype", npyFile("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", nil), `unsupported dtype "<i8"`},
		{"missing shape", npyFile("{'descr': '<f4', 'fortran_order': False, }", nil), `missing key "shape"`},
		{"unknown key", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", nil), `unexpected key "x"`},
		{"negative dim", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", nil), "non-negative integer"},
		{"bad bool", npyFile("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }", nil), "True or False"},
		{"not a dict", npyFile("[1, 2]", nil), "expected '{'"},
		{"trailing garbage", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", nil), "trailing characters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	var b bytes.Buffer
	if err := Encode(&b, []int{2, 2}, []float32{1, 2, 3}); err == nil {
		t.Error("shape/data mismatch accepted")
	}
	if err := Encode(&b, []int{-1}, []float32{}); err == nil {
		t.Error("negative dimension accepted")
	}
	// A failed write leaves no file.
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "x.npy"), []int{3}, []int32{1}); err == nil {
		t.Error("Write with mismatched shape succeeded")
	}
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("failed Write left %d file(s)", len(es))
	}
}

func FuzzDecode(f *testing.F) {
	var b bytes.Buffer
	Encode(&b, []int{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	f.Add(b.Bytes())
	b.Reset()
	Encode(&b, []int{3}, []int32{1, 2, 3})
	f.Add(b.Bytes())
	f.Add(npyFile("{'descr': '>f8', 'fortran_order': True, 'shape': (2, 1), }", make([]byte, 16)))
	f.Add([]byte("\x93NUMPY\x03\x00\x10\x00\x00\x00{'shape': ()}  \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever decodes must re-encode and decode to the same array.
		n, _ := numElems(a.Shape)
		var out bytes.Buffer
		switch d := a.Data.(type) {
		case []float32:
			err = Encode(&out, a.Shape, d)
		case []int32:
			err = Encode(&out, a.Shape, d)
		case []float64:
			err = Encode(&out, a.Shape, d)
		}
		if err != nil {
			t.Fatalf("decoded %d elements with shape %v but re-encoding failed: %v", n, a.Shape, err)
		}
		b, err := Decode(&out)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Shape, b.Shape) || !bytes.Equal(rawBits(a.Data), rawBits(b.Data)) {
			t.Fatal("re-encoded array differs")
		}
	})
}

// rawBits compares arrays bitwise so NaN payloads count as equal.
func rawBits(d any) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, d)
	return b.Bytes()
}

func Example() {
	dir, _ := os.MkdirTemp("", "npy")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "theta.npy")

	// A (2, 3) float32 matrix in row-major order; numpy.load reads it as such.
	if err := Write(path, []int{2, 3}, []float32{0.1, 0.2, 0.7, 0.5, 0.25, 0.25}); err != nil {
		panic(err)
	}
	data, shape, err := ReadAs[float32](path)
	fmt.Println(shape, data, err)
	// Output: [2 3] [0.1 0.2 0.7 0.5 0.25 0.25] <nil>
}

// TestWriteHeaderThenRows: a header followed by rows written one at a
// time is byte for byte what Encode writes for the whole array, and reads
// back; a bad shape is refused before anything is written.
func TestWriteHeaderThenRows(t *testing.T) {
	rows := [][]float32{{1, 2, 3}, {-4, 5.5, 6}, {7, 8, float32(math.Inf(1))}}
	var whole []float32
	for _, r := range rows {
		whole = append(whole, r...)
	}
	var want, got bytes.Buffer
	if err := Encode(&want, []int{3, 3}, whole); err != nil {
		t.Fatal(err)
	}
	if err := WriteHeader[float32](&got, []int{3, 3}); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		for _, v := range r {
			got.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
		}
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("header + rows differ from Encode:\n%q\n%q", got.Bytes(), want.Bytes())
	}
	a, err := Decode(&got)
	if err != nil || len(a.Shape) != 2 || a.Shape[0] != 3 || a.Shape[1] != 3 {
		t.Fatalf("decode: %v, %v", a, err)
	}
	var empty bytes.Buffer
	if err := WriteHeader[float32](&empty, []int{2, -1}); err == nil || empty.Len() != 0 {
		t.Errorf("shape (2, -1): error %v, %d bytes written", err, empty.Len())
	}
}

// TestFileErrors: an error about a file reads "npy: PATH: PROBLEM", with
// the prefix once.
func TestFileErrors(t *testing.T) {
	dir := t.TempDir()
	notNpy := filepath.Join(dir, "not.npy")
	if err := os.WriteFile(notNpy, []byte("hello, world"), 0o644); err != nil {
		t.Fatal(err)
	}
	ints := filepath.Join(dir, "ints.npy")
	if err := Write(ints, []int{2}, []int32{7, 8}); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.npy")
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"not a .npy file", func() error { _, err := Read(notNpy); return err },
			"npy: " + notNpy + `: not a .npy file (bad magic "hello,")`},
		{"another dtype", func() error { _, _, err := ReadAs[float32](ints); return err },
			"npy: " + ints + ": dtype <i4, want <f4"},
		{"data short of the shape", func() error { return Write(short, []int{3}, []float32{1, 2}) },
			"npy: " + short + ": shape [3] holds 3 elements, data has 2"},
	} {
		if err := tc.run(); err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := os.Stat(short); !os.IsNotExist(err) {
		t.Errorf("a rejected Write left %s: %v", short, err)
	}
}
