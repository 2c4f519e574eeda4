package safetensors_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gtformer/gtformer/safetensors"
	"github.com/gtformer/gtformer/tensor"
)

func Example() {
	dir, err := os.MkdirTemp("", "safetensors-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "weights.safetensors")

	w := tensor.Param("proj.weight", 2, 3)
	copy(w.Data, []float32{1, 2, 3, 4, 5, 6})
	if err := safetensors.WriteFile(path, []*tensor.Tensor{w}, map[string]string{"format": "pt"}); err != nil {
		log.Fatal(err)
	}

	f, err := safetensors.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	for _, name := range f.Names() {
		dtype, shape, _ := f.Info(name)
		data, _, _ := f.Float32(name)
		fmt.Println(name, dtype, shape, data)
	}
	fmt.Println(f.Metadata())
	// Output:
	// proj.weight F32 [2 3] [1 2 3 4 5 6]
	// map[format:pt]
}

func ExampleReadFile() {
	dir, err := os.MkdirTemp("", "safetensors-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ckpt.safetensors")

	err = safetensors.Write(path, []safetensors.Entry{
		{Name: "emb", Shape: []int{2, 2}, Data: []float32{0.5, -0.5, 1, 0}},
		{Name: "vocab_ids", Shape: []int{2}, Data: []int32{17, 42}}, // typed data via Open/Int32
	}, nil)
	if err != nil {
		log.Fatal(err)
	}
	// ReadFile wants floating tensors only; the I32 one is refused.
	_, _, err = safetensors.ReadFile(path)
	fmt.Println("ReadFile refuses I32:", err != nil)
	f, _ := safetensors.Open(path)
	ids, shape, _ := f.Int32("vocab_ids")
	fmt.Println(ids, shape)
	// Output:
	// ReadFile refuses I32: true
	// [17 42] [2]
}
