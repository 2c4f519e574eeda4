package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// MetaFile is the dataset folder's optional file of document fields: one
// JSON object per document line, in contents.txt's order ({} for a
// document without fields).
const MetaFile = "meta.jsonl"

// LabelField is the name of the built-in field that holds a document's
// label (AllFields); documents' own fields may not use it.
const LabelField = "label"

// FieldKind is what a field's values are.
type FieldKind int

const (
	// KindString values are categories: any string that is not a date.
	KindString FieldKind = iota
	// KindNumber values are JSON numbers.
	KindNumber
	// KindDate values are date strings "YYYY", "YYYY-MM" or "YYYY-MM-DD".
	KindDate
)

func (k FieldKind) String() string {
	switch k {
	case KindNumber:
		return "number"
	case KindDate:
		return "date"
	}
	return "string"
}

// MarshalText writes the kind by name in JSON.
func (k FieldKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Field is one document field over every document of a corpus.
type Field struct {
	Name string
	Kind FieldKind
	// Values holds each document's value as written: a number in its JSON
	// form, a string or date as is; "" when the document lacks the field.
	Values []string
}

// Present counts the documents that have the field.
func (f *Field) Present() int {
	n := 0
	for _, v := range f.Values {
		if v != "" {
			n++
		}
	}
	return n
}

// Number returns document i's value as a number (false when absent or
// not a number field).
func (f *Field) Number(i int) (float64, bool) {
	if f.Kind != KindNumber || f.Values[i] == "" {
		return 0, false
	}
	x, err := strconv.ParseFloat(f.Values[i], 64)
	return x, err == nil
}

// maxFieldName bounds a field's name, which the API puts in a URL path.
const maxFieldName = 100

// ParseDate reads "YYYY", "YYYY-MM" or "YYYY-MM-DD" (a real calendar
// date); month and day are 0 when not given.
func ParseDate(s string) (year, month, day int, ok bool) {
	digits := func(s string) (int, bool) {
		n := 0
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	switch len(s) {
	case 4, 7, 10:
	default:
		return 0, 0, 0, false
	}
	if year, ok = digits(s[:4]); !ok {
		return 0, 0, 0, false
	}
	if len(s) >= 7 {
		if s[4] != '-' {
			return 0, 0, 0, false
		}
		if month, ok = digits(s[5:7]); !ok || month < 1 || month > 12 {
			return 0, 0, 0, false
		}
	}
	if len(s) == 10 {
		if s[7] != '-' {
			return 0, 0, 0, false
		}
		if day, ok = digits(s[8:10]); !ok || day < 1 || day > daysIn(year, month) {
			return 0, 0, 0, false
		}
	}
	return year, month, day, true
}

// daysIn is the number of days of a month of the Gregorian calendar.
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// fieldReader gathers the fields of documents given one JSON object at a
// time, deciding each field's kind over all of them.
type fieldReader struct {
	file   string
	fields map[string]*fieldAcc
	docs   int // documents added so far
	// allowLabel accepts LabelField as a field (a model folder's copy,
	// which carries the labels among the fields); false for a corpus.
	allowLabel bool
}

// fieldAcc is one field being read: its values so far and the line of the
// first document that set its kind.
type fieldAcc struct {
	kind    FieldKind // KindNumber, or KindString for strings (dates decided at the end)
	line    int       // line of the first document with the field
	values  map[int]string
	allDate bool // every string value so far is a date
}

func newFieldReader(file string) *fieldReader {
	return &fieldReader{file: file, fields: map[string]*fieldAcc{}}
}

// add reads one document's fields from raw (a JSON object, or null or
// nothing for none); line is where the document is, for errors.
func (fr *fieldReader) add(raw json.RawMessage, line int) error {
	doc := fr.docs
	fr.docs++
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		return parseErrorf(fr.file, line, "fields: invalid JSON: %v", err)
	}
	if raw[0] != '{' {
		return parseErrorf(fr.file, line, "fields: expected a JSON object, got %s", quote(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the opening brace
		return parseErrorf(fr.file, line, "fields: invalid JSON: %v", err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return parseErrorf(fr.file, line, "fields: invalid JSON: %v", err)
		}
		name, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return parseErrorf(fr.file, line, "fields: %q: invalid JSON: %v", name, err)
		}
		if err := fr.set(name, val, doc, line, seen); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return parseErrorf(fr.file, line, "fields: invalid JSON: %v", err)
	}
	return nil
}

// set records document doc's value of field name.
func (fr *fieldReader) set(name string, val json.RawMessage, doc, line int, seen map[string]bool) error {
	switch {
	case name == "":
		return parseErrorf(fr.file, line, "fields: a field has an empty name")
	case len(name) > maxFieldName:
		return parseErrorf(fr.file, line, "fields: field name %s is longer than %d bytes", quote([]byte(name)), maxFieldName)
	case name == LabelField && !fr.allowLabel:
		return parseErrorf(fr.file, line, `fields: %q is the built-in field of the documents' labels: give it as the document's label`, LabelField)
	case seen[name]:
		return parseErrorf(fr.file, line, "fields: %q given twice", name)
	case !utf8.ValidString(name):
		return parseErrorf(fr.file, line, "fields: a field name is not valid UTF-8")
	}
	seen[name] = true
	var kind FieldKind
	var value string
	switch c := val[0]; {
	case c == 'n': // null: absent
		return nil
	case c == '"':
		if err := json.Unmarshal(val, &value); err != nil {
			return parseErrorf(fr.file, line, "fields: %q: %v", name, err)
		}
		if value == "" {
			return nil // an empty string says as little as null
		}
		kind = KindString
	case c == '-' || (c >= '0' && c <= '9'):
		x, err := strconv.ParseFloat(string(val), 64)
		if err != nil || math.IsInf(x, 0) {
			return parseErrorf(fr.file, line, "fields: %q: %s is not a finite number", name, quote(val))
		}
		kind, value = KindNumber, string(val)
	case c == '{' || c == '[':
		return parseErrorf(fr.file, line, "fields: %q: nested objects and arrays are not fields (a value is a number, a string or a date string)", name)
	default:
		return parseErrorf(fr.file, line, "fields: %q: %s is not a number, a string or a date string", name, quote(val))
	}
	acc := fr.fields[name]
	if acc == nil {
		acc = &fieldAcc{kind: kind, line: line, values: map[int]string{}, allDate: true}
		fr.fields[name] = acc
	}
	if acc.kind != kind {
		return parseErrorf(fr.file, line, "fields: %q is a %s here but a %s on line %d (a field's values are all numbers or all strings)",
			name, kind, acc.kind, acc.line)
	}
	if kind == KindString {
		if _, _, _, ok := ParseDate(value); !ok {
			acc.allDate = false
		}
	}
	acc.values[doc] = value
	return nil
}

// finish returns the fields over n documents, sorted by name (nil when no
// document has one).
func (fr *fieldReader) finish(n int) []Field {
	if len(fr.fields) == 0 {
		return nil
	}
	var out []Field
	for name, acc := range fr.fields {
		f := Field{Name: name, Kind: acc.kind, Values: make([]string, n)}
		if acc.kind == KindString && acc.allDate && name != LabelField {
			f.Kind = KindDate
		}
		for d, v := range acc.values {
			f.Values[d] = v
		}
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Field) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	return out
}

// parseMeta reads a dataset folder's meta.jsonl for n documents.
func parseMeta(r io.Reader, file string, n int) ([]Field, error) {
	fr := newFieldReader(file)
	lines := 0
	err := eachLine(r, file, func(line []byte, num int) error {
		lines = num
		if num > n {
			return nil // counted, reported below
		}
		if isBlank(line) {
			return errors.New("blank line: write {} for a document without fields")
		}
		if err := checkUTF8(line); err != nil {
			return err
		}
		return fr.add(line, num)
	})
	if err != nil {
		return nil, err
	}
	if lines != n {
		return nil, parseErrorf(file, 0, "%d lines for %d documents (%s): one JSON object per document", lines, n, ContentsFile)
	}
	return fr.finish(n), nil
}

// AllFields returns the documents' fields with the built-in label field
// first when g is labelled.
func (g *Graph) AllFields() []Field {
	var out []Field
	if g.Labels != nil {
		f := Field{Name: LabelField, Kind: KindString, Values: make([]string, g.NumDocs())}
		for i, l := range g.Labels {
			if l >= 0 && int(l) < len(g.LabelNames) {
				f.Values[i] = g.LabelNames[l]
			}
		}
		out = append(out, f)
	}
	return append(out, g.Fields...)
}

// WriteMeta writes fields as meta.jsonl: one JSON object per document, a
// number field's values as numbers, the others as strings, absent values
// left out. Every field must hold n values.
func WriteMeta(w io.Writer, fields []Field, n int) error {
	for _, f := range fields {
		if len(f.Values) != n {
			return fmt.Errorf("corpus: field %q has %d values for %d documents", f.Name, len(f.Values), n)
		}
	}
	c := newChunks(w)
	for i := range n {
		c.buf = append(c.buf, '{')
		first := true
		for _, f := range fields {
			v := f.Values[i]
			if v == "" {
				continue
			}
			if !first {
				c.buf = append(c.buf, ',')
			}
			first = false
			name, _ := json.Marshal(f.Name)
			c.buf = append(append(c.buf, name...), ':')
			if f.Kind == KindNumber {
				c.buf = append(c.buf, v...)
			} else {
				b, _ := json.Marshal(v)
				c.buf = append(c.buf, b...)
			}
		}
		c.buf = append(c.buf, '}', '\n')
		c.spill()
	}
	return c.done()
}

// ReadMeta reads a meta.jsonl written for n documents (a model folder's
// copy of its corpus's fields; see WriteMeta). The label field, which a
// model folder's copy carries, is read as a string field like the others.
func ReadMeta(r io.Reader, file string, n int) ([]Field, error) {
	fr := newFieldReader(file)
	fr.allowLabel = true
	lines := 0
	err := eachLine(r, file, func(line []byte, num int) error {
		lines = num
		if num > n {
			return nil
		}
		if err := checkUTF8(line); err != nil {
			return err
		}
		return fr.add(line, num)
	})
	if err != nil {
		return nil, err
	}
	if lines != n {
		return nil, parseErrorf(file, 0, "%d lines for %d documents: the file is not this corpus's", lines, n)
	}
	return fr.finish(n), nil
}
