package corpusstates_test

import (
	"fmt"

	"github.com/gtformer/gtformer/corpusstates"
)

// A record's line and what ParseRecord reads back from it: the states
// travel as base64 of little-endian float32, exactly.
func ExampleParseRecord() {
	meta := &corpusstates.Meta{Format: corpusstates.Format, Docs: 3, Layers: 2, Width: 1, Vocab: []string{"graph", "topic"}}
	r := &corpusstates.Record{ID: "1", Index: 1, Words: []int32{1, 0, 1}, Links: []int32{0, 2}, States: []float32{0.25, -1.5}}
	line, err := r.MarshalJSON()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(line))
	back, err := corpusstates.ParseRecord(line, meta)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(back.ID, back.Links, back.States)
	// Output:
	// {"id":"1","index":1,"words":[1,0,1],"links":[0,2],"states":"AACAPgAAwL8="}
	// 1 [0 2] [0.25 -1.5]
}
