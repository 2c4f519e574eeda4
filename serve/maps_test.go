package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMapEndpoints: the facets and the link map answer good requests, and
// each bad one with its status and a JSON error naming the problem.
func TestMapEndpoints(t *testing.T) {
	ix, _ := fixture(t)
	h := New(ix, DefaultOptions())
	levels := ix.Info().Levels
	for _, c := range []struct {
		name, target string
		code         int
		want         string
	}{
		{"facets", "/v1/topics/0/facets/label", 200, `"bin":"value"`},
		{"facets stack", "/v1/topics/0/facets/label?top=1", 200, `"label":"(other)"`},
		{"facets unknown field", "/v1/topics/0/facets/venue", 404, `field \"venue\"`},
		{"facets year", "/v1/topics/0/facets/year", 200, `"bin":"integer"`},
		{"facets year quantile", "/v1/topics/1/facets/year?bin=quantile&quantiles=3", 200, `"bin":"quantile"`},
		{"facets unknown topic", "/v1/topics/999/facets/label", 404, `topic 999`},
		{"facets topic not int", "/v1/topics/x/facets/label", 400, `topic id \"x\" is not an integer`},
		{"facets bad bin", "/v1/topics/0/facets/label?bin=week", 400, `parameter bin=\"week\"`},
		{"facets bin unfit", "/v1/topics/0/facets/label?bin=year", 400, `holds strings: bin by value`},
		{"facets top", "/v1/topics/0/facets/label?top=0", 400, `parameter top`},
		{"facets quantiles", "/v1/topics/0/facets/label?quantiles=500", 400, `parameter quantiles`},
		{"links", "/v1/topics/links", 200, `"level":1`},
		{"links level 2", "/v1/topics/links?level=2&top=3", 200, `"level":2`},
		{"links level 0", "/v1/topics/links?level=0", 400, `parameter level`},
		{"links level deep", "/v1/topics/links?level=" + string(rune('0'+levels)), 400, `parameter level`},
		{"links level text", "/v1/topics/links?level=one", 400, `parameter level`},
		{"links top", "/v1/topics/links?top=-1", 400, `parameter top`},
		{"document fields", "/v1/documents/5", 200, `"fields":{"label":`},
		{"info fields", "/v1/info", 200, `"fields":[{"name":"label","kind":"string"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := do(t, h, "GET", c.target, "")
			if w.Code != c.code || !strings.Contains(w.Body.String(), c.want) {
				t.Fatalf("GET %s: %d %s\nwant %d and %q", c.target, w.Code, w.Body, c.code, c.want)
			}
			if c.code != 200 {
				var e struct{ Error string }
				if json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == "" {
					t.Errorf("error answer %s", w.Body)
				}
			}
		})
	}
	if w := do(t, h, "POST", "/v1/topics/links", "{}"); w.Code != 405 || !strings.Contains(w.Body.String(), "use GET") {
		t.Errorf("POST /v1/topics/links: %d %s", w.Code, w.Body)
	}
	w := do(t, h, "GET", "/v1/topics/links?top=2", "")
	var lm struct {
		Topics []int       `json:"topics"`
		Lift   [][]float64 `json:"lift"`
		Pairs  []any       `json:"pairs"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &lm); err != nil || len(lm.Lift) != len(lm.Topics) || len(lm.Pairs) > 2 {
		t.Errorf("link map %s (%v)", w.Body, err)
	}
}

// FuzzMaps sends arbitrary topics, fields and queries to the facets and
// the link map.
func FuzzMaps(f *testing.F) {
	h := fuzzServer(f)
	for _, s := range []string{"0/facets/label", "1/facets/label?bin=quantile&top=2", "x/facets/%ff", "0/facets/label?bin=%00",
		"links?level=1&top=3", "links?level=99", "links?top=1e9", "0/facets/?bin=month"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rest string) {
		if strings.ContainsAny(rest, " \r\n\t#") {
			return
		}
		target := "/v1/topics/" + rest
		req, err := http.NewRequest("GET", "http://127.0.0.1"+target, nil)
		if err != nil {
			return // not a request a client can send
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 300 && w.Code < 400 {
			return // the mux sends an unclean path to its clean form
		}
		checkJSONAnswer(t, "GET "+target, w)
	})
}
