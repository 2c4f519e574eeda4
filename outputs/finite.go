package outputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// encodeFinite marshals v as json.MarshalIndent(v, "", "  ") does, except
// that a NaN or infinite float, which encoding/json refuses, is written as
// null; undefined lists where, as JSON paths ("test.link_auc",
// "topics.level_share[2]"), with the value. A metric that is undefined for
// a corpus (NPMI with a single word, an AUC without test links) must not
// make the whole write fail.
func encodeFinite(v any) (b []byte, undefined []string, err error) {
	b, err = json.Marshal(v)
	var unsupported *json.UnsupportedValueError
	if errors.As(err, &unsupported) {
		e := &finiteEncoder{}
		if err = e.value("", reflect.ValueOf(v)); err == nil {
			b, undefined = e.buf.Bytes(), e.undefined
		}
	}
	if err != nil {
		return nil, nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, nil, err
	}
	return out.Bytes(), undefined, nil
}

// finiteEncoder writes compact JSON as encoding/json does for the types
// results are made of (structs with json tags, pointers, slices, maps with
// string keys, numbers, strings, booleans, json.Marshalers), with null for
// non-finite floats.
type finiteEncoder struct {
	buf       bytes.Buffer
	undefined []string
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

func (e *finiteEncoder) value(path string, v reflect.Value) error {
	if !v.IsValid() {
		e.buf.WriteString("null")
		return nil
	}
	if v.Type().Implements(marshalerType) && !(v.Kind() == reflect.Pointer && v.IsNil()) {
		return e.leaf(v)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.buf.WriteString("null")
			return nil
		}
		return e.value(path, v.Elem())
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			e.undefined = append(e.undefined, fmt.Sprintf("%s (%v)", strings.TrimPrefix(path, "."), f))
			e.buf.WriteString("null")
			return nil
		}
		return e.leaf(v)
	case reflect.Struct:
		return e.object(path, v)
	case reflect.Map:
		if v.IsNil() {
			e.buf.WriteString("null")
			return nil
		}
		if v.Type().Key().Kind() != reflect.String {
			return e.leaf(v)
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		e.buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			e.key(k.String())
			if err := e.value(path+"."+k.String(), v.MapIndex(k)); err != nil {
				return err
			}
		}
		e.buf.WriteByte('}')
		return nil
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && (v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8) {
			return e.leaf(v)
		}
		e.buf.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			if err := e.value(path+"["+strconv.Itoa(i)+"]", v.Index(i)); err != nil {
				return err
			}
		}
		e.buf.WriteByte(']')
		return nil
	}
	return e.leaf(v)
}

// leaf writes what encoding/json writes for v.
func (e *finiteEncoder) leaf(v reflect.Value) error {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return err
	}
	e.buf.Write(b)
	return nil
}

func (e *finiteEncoder) key(k string) {
	b, _ := json.Marshal(k) // a string always marshals
	e.buf.Write(b)
	e.buf.WriteByte(':')
}

// object writes a struct's exported fields as encoding/json does: named by
// their json tag, "-" skipped, omitempty honoured, untagged embedded
// structs inlined.
func (e *finiteEncoder) object(path string, v reflect.Value) error {
	e.buf.WriteByte('{')
	first := true
	var fields func(v reflect.Value) error
	fields = func(v reflect.Value) error {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			fv := v.Field(i)
			if f.Anonymous && name == "" {
				if fv.Kind() == reflect.Pointer {
					if fv.IsNil() {
						continue
					}
					fv = fv.Elem()
				}
				if fv.Kind() == reflect.Struct {
					if err := fields(fv); err != nil {
						return err
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if slices.Contains(strings.Split(opts, ","), "omitempty") && emptyValue(fv) {
				continue
			}
			if !first {
				e.buf.WriteByte(',')
			}
			first = false
			e.key(name)
			if err := e.value(path+"."+name, fv); err != nil {
				return err
			}
		}
		return nil
	}
	if err := fields(v); err != nil {
		return err
	}
	e.buf.WriteByte('}')
	return nil
}

// emptyValue is encoding/json's omitempty test.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
