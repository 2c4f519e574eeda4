package model

import (
	"encoding/json"
	"fmt"
	"math"
)

// Removed is a setting that earlier builds wrote into a saved JSON file and
// this build no longer has (an option tried and not adopted; docs/journal.md
// keeps its record). A file that holds it at an "off" value is read without
// it; one that had it on is refused, since this build cannot reproduce what
// it did.
type Removed struct {
	// In is the path of keys to the object that held it ("model", "tree"
	// for the topic tree's settings in config.json); empty: the top.
	In []string
	// Key is its JSON name.
	Key string
	// Off reports whether a decoded value meant "off"; nil: the JSON zero
	// value (false, 0, "", null, an empty list or object).
	Off func(v any) bool
}

// IsZeroJSON reports whether v, as encoding/json decodes into an any, is
// a zero value: false, 0, "", null, an empty list or object.
func IsZeroJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// OffUnless returns an Off that also accepts the given strings (a string
// setting whose named default meant what "" did).
func OffUnless(off ...string) func(any) bool {
	return func(v any) bool {
		if s, ok := v.(string); ok {
			for _, o := range off {
				if s == o {
					return true
				}
			}
		}
		return IsZeroJSON(v)
	}
}

// OffAt returns an Off that also accepts the number x (a scale whose 1
// meant "unchanged", like 0).
func OffAt(x float64) func(any) bool {
	return func(v any) bool {
		if f, ok := v.(float64); ok && math.Abs(f-x) == 0 {
			return true
		}
		return IsZeroJSON(v)
	}
}

// StripRemoved returns raw (one JSON object) without the removed settings
// that it holds at an off value. When one was on it returns its key in on,
// with raw unchanged; the caller names it in its error. Input that is not
// a JSON object comes back as it is, for the caller's decoder to report.
// name is the file's, for messages.
func StripRemoved(name string, raw []byte, removed []Removed) (out []byte, on string, err error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return raw, "", nil
	}
	changed := false
	for _, r := range removed {
		obj, ok := top, true
		var parents []map[string]json.RawMessage
		for _, k := range r.In {
			parents = append(parents, obj)
			var next map[string]json.RawMessage
			if v, has := obj[k]; !has || json.Unmarshal(v, &next) != nil {
				ok = false
				break
			}
			obj = next
		}
		v, has := obj[r.Key]
		if !ok || !has {
			continue
		}
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return raw, "", fmt.Errorf("model: %s: %s: %w", name, r.Key, err)
		}
		off := r.Off
		if off == nil {
			off = IsZeroJSON
		}
		if !off(x) {
			return raw, r.Key, nil
		}
		delete(obj, r.Key)
		// Write the changed object back up the path.
		for i := len(r.In) - 1; i >= 0; i-- {
			b, err := json.Marshal(obj)
			if err != nil {
				return raw, "", fmt.Errorf("model: %s: %s: %w", name, r.Key, err)
			}
			parents[i][r.In[i]] = b
			obj = parents[i]
		}
		changed = true
	}
	if !changed {
		return raw, "", nil
	}
	out, err = json.Marshal(top)
	if err != nil {
		return raw, "", fmt.Errorf("model: %s: %w", name, err)
	}
	return out, "", nil
}

// removedConfig are the model settings of earlier builds (config.json).
var removedConfig = []Removed{
	{In: []string{"model"}, Key: "level_target"},
	{In: []string{"model"}, Key: "topic_detach"},
	{In: []string{"model"}, Key: "topic_head"},
	{In: []string{"model", "tree"}, Key: "norm_stick"},
}
